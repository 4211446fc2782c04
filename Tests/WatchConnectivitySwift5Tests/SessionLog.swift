// Logging through os.Logger, as apps do: one logger per category, privacy on each interpolated value.
// Compiled unchanged in Swift 5 and Swift 6 modes.

import WatchConnectivity
import os

extension Logger {
    private static let subsystem = "com.example.waterlog"
    static let connectivity = Logger(subsystem: subsystem, category: "connectivity")
    static let storage = Logger(subsystem: subsystem, category: "storage")
}

final class LoggingSessionDelegate: NSObject, WCSessionDelegate {
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error = error {
            Logger.connectivity.error("activation failed: \(error.localizedDescription, privacy: .public)")
            return
        }
        Logger.connectivity.info("activated: state=\(activationState.rawValue) reachable=\(session.isReachable)")
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        let millilitres = userInfo["ml"] as? Double ?? 0
        Logger.storage.notice("saved \(millilitres, format: .fixed(precision: 1)) ml for \(userInfo["user"] as? String ?? "?", privacy: .private)")
        Logger.connectivity.debug("keys: \(userInfo.keys.sorted().joined(separator: ","), privacy: .public)")
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        Logger.connectivity.log(level: .default, "message with \(message.count) keys")
        replyHandler(["ok": true])
    }

    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) { session.activate() }
}
