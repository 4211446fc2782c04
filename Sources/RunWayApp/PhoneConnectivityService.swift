import Connectivity
import Posix
import Storage

/// The phone app's session delegate (RunWay's connectivity service): turns received userInfo into
/// flights and hands them to the view model, which owns saving. It knows nothing of storage itself.
public final class PhoneConnectivityService: SessionDelegate {
    public let viewModel: RunViewModel
    private let logger: Logger
    public var onActivation: ((ActivationState, Error?) -> Void)?
    public var onStateChange: (() -> Void)?

    public init(viewModel: RunViewModel, logger: Logger) {
        self.viewModel = viewModel
        self.logger = logger
    }

    public func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
        onActivation?(state, error)
    }

    public func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        let origin = FlightStore.Origin(deviceID: transfer.senderDeviceID, transferSeq: transfer.seq)
        do {
            let flight = try Flight(userInfo: userInfo)
            return viewModel.receiveFromWatch(flight, origin: origin)
        } catch .notAFlight {
            return recordOther(userInfo, origin: origin)
        } catch {
            // A flight the app cannot read will not become readable by resending it.
            logger.error("app.flight-malformed", ["seq": transfer.seq, "error": "\(error)", "action": "dropped"])
            return .accepted
        }
    }

    private func recordOther(_ userInfo: UserInfo, origin: FlightStore.Origin) -> ReceiveOutcome {
        guard let store = viewModel.store else { return .notNow }
        do {
            try store.recordReceivedUserInfo(PropertyListCodec.encode(userInfo), origin: origin)
            return .accepted
        } catch {
            logger.error("app.userinfo-save-failed", ["seq": origin.transferSeq ?? 0, "error": "\(error)"])
            return .notNow
        }
    }

    public func sessionDidCommitReceivedTransfers(_ session: Session) { viewModel.didCommit() }
    public func session(_ session: Session, didRollBackReceivedTransfers error: Error) { viewModel.didRollBack() }
    public func sessionReachabilityDidChange(_ session: Session) { onStateChange?() }
    public func sessionWatchStateDidChange(_ session: Session) { onStateChange?() }
}
