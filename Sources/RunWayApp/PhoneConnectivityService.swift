import Connectivity
import Posix
import Storage
import PropertyLists

/// The phone app's session delegate (RunWay's connectivity service): turns received userInfo into
/// flights and hands them to the view model, which owns saving. It knows nothing of storage itself.
public final class PhoneConnectivityService: RunWaySessionDelegate {
    public let viewModel: RunViewModel
    public let app: AppConnectivity
    public var appRole: DeviceRole { .phone }
    private let logger: Logger
    public var onActivation: ((ActivationState, Error?) -> Void)?
    public var onStateChange: (() -> Void)?

    public init(viewModel: RunViewModel, app: AppConnectivity, logger: Logger) {
        self.viewModel = viewModel
        self.app = app
        self.logger = logger
    }

    public func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
        onActivation?(state, error)
    }

    /// The paired watch was switched: activate again, as Apple asks apps to, to talk to the new one.
    public func sessionDidDeactivate(_ session: Session) {
        logger.notice("app.session-reactivating", ["reason": "paired watch switched"])
        try? session.activate()
    }

    /// Flights, the bulk of what arrives, are read straight from their encoding; anything else (or a
    /// flight that does not read cleanly) takes the general path below.
    public func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome? {
        guard let flight = Flight(encodedUserInfo: bytes) else { return nil }
        return viewModel.receiveFromWatch(flight, origin: FlightStore.Origin(deviceID: transfer.senderDeviceID, transferSeq: transfer.seq))
    }

    public func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        let origin = FlightStore.Origin(deviceID: transfer.senderDeviceID, transferSeq: transfer.seq)
        do {
            let flight = try Flight(userInfo: userInfo)
            return viewModel.receiveFromWatch(flight, origin: origin)
        } catch .notAFlight {
            return viewModel.store == nil ? .notNow : app.recordUserInfo(userInfo, transfer: transfer)
        } catch {
            // A flight the app cannot read will not become readable by resending it: the session
            // quarantines it (durably, in this transaction) instead of storing it.
            logger.error("app.flight-malformed", ["seq": transfer.seq, "error": "\(error)", "action": "quarantined"])
            return .rejected(error.description)
        }
    }

    /// RunWay 1.4's dead instrument stream (#52): the phone's handler for the values a watch sent every
    /// 3 s was guarded by `startOrigin == .remote`, which a phone can never be (watch-led mirroring was
    /// removed, #51), so it dropped them all. Only a watch started with `--instrument-stream` sends any.
    public private(set) var instrumentValuesDiscarded = 0

    public func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {
        guard message["type"]?.stringValue == "instrumentValues" else {
            app.answer(message, from: appRole, reply: reply)
            return
        }
        // guard startOrigin == .remote else { return }: never true on the phone.
        instrumentValuesDiscarded += 1
        reply([:])
    }

    public func sessionDidCommitReceivedTransfers(_ session: Session) { viewModel.didCommit() }
    public func session(_ session: Session, didRollBackReceivedTransfers error: Error) { viewModel.didRollBack() }
    public func sessionReachabilityDidChange(_ session: Session) { onStateChange?() }
    public func sessionWatchStateDidChange(_ session: Session) { onStateChange?() }
}
