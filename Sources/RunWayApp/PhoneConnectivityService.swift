import Foundation
import Posix
import PropertyLists
import Storage
import WatchConnectivity
import RunWayDomain

/// The phone app's session delegate (RunWay's connectivity service): turns received userInfo into
/// flights and hands them to the view model, which owns saving. It knows nothing of storage itself; the
/// batch's transaction is the app store's (`RunWaySessionDelegate`).
package final class PhoneConnectivityService: RunWaySessionDelegate {
    package let viewModel: RunViewModel
    package var onStateChange: (() -> Void)?
    /// Reachability alone (the phone-led run's `workoutSync` when the watch is back).
    package var onReachabilityChange: (() -> Void)?
    /// The watch's state alone (a watch app removed: the phone takes back the Health saves it left to it).
    package var onWatchStateChange: (() -> Void)?
    /// What the watch did with a phone-led run it ended (issue 51), taken in the batch's transaction.
    var onRunHealthReport: ((RunHealthReport) -> Void)?

    package init(viewModel: RunViewModel, app: AppConnectivity, logger: Logger) {
        self.viewModel = viewModel
        super.init(app: app, role: "phone", logger: logger)
    }

    /// Flights, the bulk of what arrives, are read straight from their encoding; anything else (or a
    /// flight that does not read cleanly) takes the general path below.
    package override func session(_ session: WCSession, didReceiveEncodedUserInfo userInfo: UnsafeRawBufferPointer, transfer: WCReceivedTransfer)
        -> WCReceiveOutcome?
    {
        guard let flight = Flight(encodedUserInfo: userInfo) else { return nil }
        return viewModel.receiveFromWatch(flight, origin: FlightStore.Origin(deviceID: transfer.senderDeviceID, transferSeq: transfer.transferIdentifier))
    }

    package override func session(_ session: WCSession, didReceiveUserInfo userInfo: UserInfo, transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        let origin = FlightStore.Origin(deviceID: transfer.senderDeviceID, transferSeq: transfer.transferIdentifier)
        if let report = RunHealthReport(userInfo: userInfo), let onRunHealthReport {
            onRunHealthReport(report)
            return .accepted
        }
        do {
            let flight = try Flight(userInfo: userInfo)
            return viewModel.receiveFromWatch(flight, origin: origin)
        } catch .notAFlight {
            return viewModel.store == nil ? .notNow : app.recordUserInfo(userInfo, transfer: transfer)
        } catch {
            // A flight the app cannot read will not become readable by resending it: the session
            // quarantines it (durably) instead of the app storing it.
            logger.error("app.flight-malformed", ["seq": transfer.transferIdentifier, "error": "\(error)", "action": "quarantined"])
            return .rejected(error.description)
        }
    }

    /// RunWay 1.4's dead instrument stream (#52): the phone's handler for the values a watch sent every
    /// 3 s was guarded by `startOrigin == .remote`, which a phone can never be (watch-led mirroring was
    /// removed, #51), so it dropped them all. Only a watch started with `--instrument-stream` sends any.
    package private(set) var instrumentValuesDiscarded = 0

    package override func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        guard message["type"] as? String == "instrumentValues" else {
            super.session(session, didReceiveMessage: message, replyHandler: replyHandler)
            return
        }
        // guard startOrigin == .remote else { return }: never true on the phone.
        instrumentValuesDiscarded += 1
        replyHandler([:])
    }

    package override func sessionDidCommitUserInfoBatch(_ session: WCSession) { viewModel.didCommit() }
    override func didRollBack() { viewModel.didRollBack() }
    package override func sessionReachabilityDidChange(_ session: WCSession) {
        onReachabilityChange?()
        onStateChange?()
    }
    package override func sessionWatchStateDidChange(_ session: WCSession) {
        onWatchStateChange?()
        onStateChange?()
    }
}
