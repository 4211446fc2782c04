import Foundation
import UIKit
import WatchConnectivity

/// The phone's side: every entry the watch sends is written to the log.
///
/// `savesOnlyOnScreen` is the bug this example carries on purpose — RunWay 1.3's: entries are kept in
/// memory until the app's screen appears, and saved then. iOS launches the app in the background to hand
/// it a transfer, with no screen; the transfer is acknowledged when the callback returns; the app is
/// reclaimed; the entries die with it.
public final class PhoneSessionManager: NSObject, WCSessionDelegate, @unchecked Sendable {
    public let savesOnlyOnScreen: Bool
    private var pending: [WaterEntry] = []
    private let lock = NSLock()

    public init(savesOnlyOnScreen: Bool) {
        self.savesOnlyOnScreen = savesOnlyOnScreen
        super.init()
        _ = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main
        ) { [weak self] _ in self?.screenAppeared() }
    }

    public func start() {
        guard WCSession.isSupported() else { return }
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error { print("WaterPhone: activation failed: \(error)") }
    }

    public func sessionDidBecomeInactive(_ session: WCSession) {}

    public func sessionDidDeactivate(_ session: WCSession) {
        // The user switched watches: talk to the new one.
        WCSession.default.activate()
    }

    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard let entry = WaterEntry(userInfo: userInfo) else { return }
        // UIApplication belongs to the main actor (as in the SDK): asked there, from the session's queue.
        let offScreen = savesOnlyOnScreen && DispatchQueue.main.sync { MainActor.assumeIsolated { UIApplication.shared.applicationState != .active } }
        lock.lock()
        defer { lock.unlock() }
        if offScreen {
            pending.append(entry)  // "the list will save them when it appears"
            return
        }
        try? EntryLog.append(entry)
    }

    private func screenAppeared() {
        lock.lock()
        defer { lock.unlock() }
        for entry in pending { try? EntryLog.append(entry) }
        pending.removeAll()
    }
}
