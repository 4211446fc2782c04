// The watch app. `--log N`: log N glasses the first time it runs.
import Foundation
import WaterLogKit

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--log").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 0
let manager = WatchSessionManager(glassesAtLaunch: count)
manager.start()
RunLoop.main.run()
