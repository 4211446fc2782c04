// The phone app. `--save-on-screen` brings back the bug (see PhoneSessionManager).
import Foundation
import WaterLogKit

let manager = PhoneSessionManager(savesOnlyOnScreen: CommandLine.arguments.contains("--save-on-screen"))
manager.start()
RunLoop.main.run()
