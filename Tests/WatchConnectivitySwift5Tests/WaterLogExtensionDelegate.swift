import ClockKit
import WatchConnectivity
import WatchKit
import WidgetKit

/// A watch app's extension delegate as watchOS projects write it — WatchKit's tasks switched on by type,
/// the WatchConnectivity task kept until the session has no content pending, the next refresh scheduled,
/// the complication reloaded through ClockKit and WidgetKit — compiled unchanged in Swift 5 mode here and
/// in Swift 6 mode (WatchConnectivitySwift6Tests links this file).
class WaterLogExtensionDelegate: NSObject, WKExtensionDelegate {
    var pendingConnectivityTasks: [WKWatchConnectivityRefreshBackgroundTask] = []
    var log: [String] = []
    var refreshErrors: [Error] = []

    func applicationDidFinishLaunching() {
        let device = WKInterfaceDevice.current()
        log.append("launched on \(device.systemName) \(device.systemVersion), \(Int(device.screenBounds.width)) pt wide")
        scheduleNextRefresh()
    }

    func applicationDidBecomeActive() { log.append("active") }
    func applicationWillResignActive() { log.append("resigning") }
    func applicationDidEnterBackground() { log.append("background") }

    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            switch task {
            case let backgroundTask as WKApplicationRefreshBackgroundTask:
                scheduleNextRefresh()
                backgroundTask.setTaskCompletedWithSnapshot(false)
            case let snapshotTask as WKSnapshotRefreshBackgroundTask:
                snapshotTask.setTaskCompleted(restoredDefaultState: true, estimatedSnapshotExpiration: Date.distantFuture, userInfo: nil)
            case let connectivityTask as WKWatchConnectivityRefreshBackgroundTask:
                pendingConnectivityTasks.append(connectivityTask)
                completeConnectivityTasksIfDone()
            case let urlSessionTask as WKURLSessionRefreshBackgroundTask:
                log.append("url session \(urlSessionTask.sessionIdentifier)")
                urlSessionTask.setTaskCompletedWithSnapshot(false)
            default:
                task.setTaskCompletedWithSnapshot(false)
            }
        }
    }

    func completeConnectivityTasksIfDone() {
        guard !WCSession.default.hasContentPending else { return }
        pendingConnectivityTasks.forEach { $0.setTaskCompletedWithSnapshot(false) }
        pendingConnectivityTasks.removeAll()
    }

    func scheduleNextRefresh() {
        WKExtension.shared().scheduleBackgroundRefresh(withPreferredDate: Date(timeIntervalSinceNow: 15 * 60), userInfo: nil) { error in
            if let error = error { self.refreshErrors.append(error) }
        }
    }

    /// New data for the face: ClockKit's complications and WidgetKit's widgets reloaded.
    func reloadComplications() -> Int {
        let server = CLKComplicationServer.sharedInstance()
        let active = server.activeComplications ?? []
        for complication in active where complication.family == .graphicCorner || complication.identifier == CLKDefaultComplicationIdentifier {
            server.reloadTimeline(for: complication)
            server.extendTimeline(for: complication)
        }
        WidgetCenter.shared.reloadTimelines(ofKind: "WaterLogComplication")
        WidgetCenter.shared.reloadAllTimelines()
        WKInterfaceDevice.current().play(.success)
        return active.count
    }

    var isOnScreen: Bool { WKExtension.shared().applicationState == .active || WKApplication.shared().applicationState == .active }
}
