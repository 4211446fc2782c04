import Connectivity
import Posix

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

    public func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        app.recordUserInfo(userInfo, transfer: transfer)
    }
}
