import Foundation
import Posix
import PropertyLists
import WatchConnectivity
import RunWayDomain

/// The watch app's session delegate: takes what the phone sends (userInfo, contexts, messages) and
/// hears when its own transfers — finished runs — are safely on the phone.
package final class WatchConnectivityService: RunWaySessionDelegate {
    /// What the app does when a transfer fails (`didFinish` with an error): RunWay queues the run
    /// again (a new transfer; the phone dedups by flight id), so no run is lost. `false` is the seeds'
    /// app (`watch-agent --failed-transfer legacy`): no handler, the run is gone.
    package var requeueFailedTransfers = true

    /// The phone's question about the runs it led (issue 51): answered by the watch app's runs.
    var onRunHealthQuery: (([String: Bool]) -> UserInfo)?

    package init(app: AppConnectivity, logger: Logger) {
        super.init(app: app, role: "watch", logger: logger)
    }

    package override func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        if message["type"] as? String == RunHealthQuery.messageType, let onRunHealthQuery,
            let verdicts = RunHealthQuery.verdicts((try? WCSession.typed(message)) ?? [:])
        {
            replyHandler(WCSession.untyped(onRunHealthQuery(verdicts)))
            return
        }
        super.session(session, didReceiveMessage: message, replyHandler: replyHandler)
    }

    package override func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: (any Error)?) {
        app.didFinish(userInfoTransfer, error: error)
        guard let error, requeueFailedTransfers else { return }
        let code = (error as? WCError)?.code.rawValue ?? 0
        do {
            let userInfo = try WCSession.typed(userInfoTransfer.userInfo)
            let again = try session.transferUserInfo(typed: [userInfo])
            logger.notice("app.transfer-requeued", ["seq": userInfoTransfer.transferIdentifier, "newSeq": again.first?.transferIdentifier ?? 0, "error": code])
        } catch {
            logger.error("app.transfer-requeue-failed", ["seq": userInfoTransfer.transferIdentifier, "error": "\(error)"])
        }
    }
}
