// A second phone app, for the other mix: your phone app with RunWay's watch. RunWay's watch sends each
// recorded run as a userInfo with `type: "flight"` and an `id`; this app keeps the ids (Documents/runs.log),
// saved before the callback returns. `--save-on-screen` brings back RunWay 1.3's bug, as WaterPhone's
// does: ids kept in memory until the screen appears. `scenarios/` replays both as bug-report files.
import Foundation
import UIKit
import WaterLogKit
import WatchConnectivity

final class RunReceiver: NSObject, WCSessionDelegate, @unchecked Sendable {
    let savesOnlyOnScreen = CommandLine.arguments.contains("--save-on-screen")
    private let log = LineLog(name: "runs.log")
    private var pending: [String] = []
    private let lock = NSLock()

    override init() {
        super.init()
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
        ) { [weak self] _ in self?.screenAppeared() }
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard userInfo["type"] as? String == "flight", let id = userInfo["id"] as? String else { return }
        // UIApplication belongs to the main actor (as in the SDK): asked there, from the session's queue.
        let offScreen = savesOnlyOnScreen && DispatchQueue.main.sync { MainActor.assumeIsolated { UIApplication.shared.applicationState != .active } }
        lock.lock()
        defer { lock.unlock() }
        if offScreen {
            pending.append(id)  // "the Logbook will save them when it appears"
            return
        }
        try? log.append(id)
    }

    private func screenAppeared() {
        lock.lock()
        defer { lock.unlock() }
        for id in pending { try? log.append(id) }
        pending.removeAll()
    }
}

let receiver = RunReceiver()
WCSession.default.delegate = receiver
WCSession.default.activate()
RunLoop.main.run()
