// The watch app. `--log N`: log N glasses the first time it runs.
//
// Written as a watchOS app is: an extension delegate set first thing, which keeps the WatchConnectivity
// task watch-os hands it (a launch for what the phone sent) until the session has no content pending,
// then completes it — and completes any other task at once — so the system can end the launch.
import Foundation
import WatchConnectivity
import WatchKit
import WaterLogKit

final class ExtensionDelegate: NSObject, WKExtensionDelegate {
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            if let connectivityTask = task as? WKWatchConnectivityRefreshBackgroundTask {
                completeWhenContentIsIn(connectivityTask)
            } else {
                task.setTaskCompletedWithSnapshot(false)
            }
        }
    }

    /// Apple's advice: keep the task until `hasContentPending` is false.
    func completeWhenContentIsIn(_ task: WKWatchConnectivityRefreshBackgroundTask) {
        guard WCSession.default.activationState == .activated, !WCSession.default.hasContentPending else {
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { self.completeWhenContentIsIn(task) }
            return
        }
        task.setTaskCompletedWithSnapshot(false)
    }
}

let arguments = CommandLine.arguments
let count = arguments.firstIndex(of: "--log").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 0
let delegate = ExtensionDelegate()
WKExtension.shared().delegate = delegate
let manager = WatchSessionManager(glassesAtLaunch: count)
manager.start()
RunLoop.main.run()
