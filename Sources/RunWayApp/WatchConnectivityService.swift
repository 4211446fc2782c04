import Connectivity
import Posix
import PropertyLists

/// The watch app's session delegate: takes what the phone sends (userInfo, contexts, messages) and
/// hears when its own transfers — finished runs — are safely on the phone.
public final class WatchConnectivityService: RunWaySessionDelegate {
    public let app: AppConnectivity
    public var appRole: DeviceRole { .watch }
    private let logger: Logger
    public var onActivation: ((ActivationState, Error?) -> Void)?

    public init(app: AppConnectivity, logger: Logger) {
        self.app = app
        self.logger = logger
    }

    public func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
        onActivation?(state, error)
    }

    public func sessionDidDeactivate(_ session: Session) { try? session.activate() }

    /// What the app does when a transfer fails (`didFinish` with an error): RunWay queues the run
    /// again (a new transfer; the phone dedups by flight id), so no run is lost. `false` is the seeds'
    /// app (`watch-agent --failed-transfer legacy`): no handler, the run is gone.
    public var requeueFailedTransfers = true

    public func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?) {
        app.didFinish(transfer, error: error)
        guard let error, requeueFailedTransfers, let userInfo = transfer.userInfo else { return }
        do {
            let again = try session.transferUserInfo(userInfo)
            logger.notice("app.transfer-requeued", ["seq": transfer.seq, "newSeq": again.seq, "error": error.code.rawValue])
        } catch {
            logger.error("app.transfer-requeue-failed", ["seq": transfer.seq, "error": "\(error)"])
        }
    }

    public func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        app.recordUserInfo(userInfo, transfer: transfer)
    }
}
