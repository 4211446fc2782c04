import AppHost
import Connectivity
import Digest
import Foundation
import PropertyLists

/// The engine's handler, speaking to the app's `WCSessionDelegate` in Apple's terms: typed values to
/// `[String: Any]`, the engine's errors to `WCError`, and a batch delegate's extras when the app has them.
/// Runs on the device's delegate queue, like every call it makes.
///
/// Its switch names every callback, without a `default`: a new one does not compile until it says what
/// the app hears. A received transfer or file the app has no delegate for is not taken now (`.notNow`).
final class SessionAdapter: SessionHandler {
    unowned let wcSession: WCSession

    init(session: WCSession) { wcSession = session }

    private var delegate: (any WCSessionDelegate)? { wcSession.delegate }
    private var batchDelegate: (any WCSessionBatchDelegate)? { wcSession.delegate as? any WCSessionBatchDelegate }

    func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case let .activationDidComplete(state, error): activationDidComplete(session, state, error)
        case .didBecomeInactive:
            wcSession.stateMayHaveChanged()
            guard let delegate else { break }
            lacksInactive = wcSession.callingDelegate { delegate.sessionDidBecomeInactive(wcSession) } != nil
        case .didDeactivate:
            wcSession.stateMayHaveChanged()
            guard let delegate else { break }
            let lacksDeactivate = wcSession.callingDelegate { delegate.sessionDidDeactivate(wcSession) } != nil
            if lacksInactive && lacksDeactivate { optedOutOfSwitching(session) }
            lacksInactive = false
        case .willReceiveTransfers: batchDelegate?.sessionWillReceiveUserInfoBatch(wcSession)
        case let .didReceiveEncodedUserInfo(bytes, transfer):
            return batchDelegate?.session(wcSession, didReceiveEncodedUserInfo: bytes, transfer: Self.received(transfer)).map(Self.outcome)
        case let .didReceiveUserInfo(userInfo, transfer): return didReceive(userInfo, transfer, session)
        case .willCommitReceivedTransfers: try batchDelegate?.sessionWillCommitUserInfoBatch(wcSession)
        case .didCommitReceivedTransfers:
            batchDelegate?.sessionDidCommitUserInfoBatch(wcSession)
            // What was pending has arrived (`hasContentPending`).
            wcSession.stateMayHaveChanged()
        case let .didRollBackReceivedTransfers(error): batchDelegate?.sessionDidRollBackUserInfoBatch(wcSession, error: error)
        case let .didFinish(transfer, error): didFinish(session, transfer, error)
        case let .didReceiveApplicationContext(context):
            guard let delegate else { break }
            let missing = wcSession.callingDelegate { delegate.session(wcSession, didReceiveApplicationContext: PropertyListBridge.untyped(context)) }
            if let missing { session.delegateDoesNotImplement(missing.rawValue, "kept as receivedApplicationContext only") }
        case let .didReceiveMessage(message, reply?):
            return deliverMessage(session) { delegate in
                delegate.session(wcSession, didReceiveMessage: PropertyListBridge.untyped(message)) { answer in
                    // A reply that is not a property list cannot travel: the sender's time-out tells it so.
                    guard let typed = try? PropertyListBridge.typed(answer) else { return }
                    reply(typed)
                }
            }
        case let .didReceiveMessage(message, nil):
            return deliverMessage(session) { $0.session(wcSession, didReceiveMessage: PropertyListBridge.untyped(message)) }
        case let .didReceiveMessageData(data, reply?):
            return deliverMessage(session) { $0.session(wcSession, didReceiveMessageData: Data(data)) { answer in reply([UInt8](answer)) } }
        case let .didReceiveMessageData(data, nil):
            return deliverMessage(session) { $0.session(wcSession, didReceiveMessageData: Data(data)) }
        case let .didReceiveFile(file): return didReceive(file, session)
        case let .fileTransferDidProgress(seq, completed, _):
            guard let transfer = wcSession.fileTransfer(seq) else { break }
            transfer.progress.completedUnitCount = min(completed, transfer.progress.totalUnitCount)
        case .reachabilityDidChange:
            wcSession.stateMayHaveChanged()
            delegate?.sessionReachabilityDidChange(wcSession)
        case .watchStateDidChange: watchStateDidChange(session)
        }
        return nil
    }

    /// Whether the delegate lacked `sessionDidBecomeInactive` in the switch under way.
    private var lacksInactive = false

    /// A switch ended, and the delegate implements neither of the methods Apple says an iPhone app "must
    /// implement … to support quick switching between Apple Watch devices": the app opted out of
    /// switching, and its system terminates it in the background (phone-os, told so).
    private func optedOutOfSwitching(_ session: Session) {
        for method in [DelegateMethod.sessionDidBecomeInactive, .sessionDidDeactivate] {
            session.delegateDoesNotImplement(method.rawValue, "the app opted out of watch switching: phone-os terminates it in the background")
        }
        AppLaunch.reportWatchSwitchOptOut()
    }

    private func activationDidComplete(_ session: Session, _ state: ActivationState, _ error: (any Error)?) {
        if session.role == .watch { companionInstalled = session.counterpartAppInstalled }
        let public_: WCSessionActivationState =
            switch state {
            case .notActivated: .notActivated
            case .inactive: .inactive
            case .activated: .activated
            }
        wcSession.stateMayHaveChanged()
        delegate?.session(wcSession, activationDidCompleteWith: public_, error: error.map(WCError.from))
    }

    // MARK: - Receiving

    /// A message, to the delegate's method for it (`call`): `.rejected` when the delegate lacks that
    /// method, or there is none — the session then fails the send with `deliveryFailed` (7014) and logs it.
    private func deliverMessage(_ session: Session, _ call: (any WCSessionDelegate) -> Void) -> ReceiveOutcome? {
        guard let delegate else {
            session.delegateDoesNotImplement("WCSession.delegate", "no delegate: the sender hears 7014 deliveryFailed")
            return .rejected("the \(session.role.rawValue) app's session has no delegate")
        }
        guard let missing = wcSession.callingDelegate({ call(delegate) }) else { return nil }
        session.delegateDoesNotImplement(missing.rawValue, "the sender hears 7014 deliveryFailed")
        return .rejected("the \(session.role.rawValue) app's delegate does not implement \(missing.rawValue)")
    }

    private func didReceive(_ userInfo: UserInfo, _ transfer: ReceivedTransfer, _ session: Session) -> ReceiveOutcome {
        if let batchDelegate {
            return Self.outcome(batchDelegate.session(wcSession, didReceiveUserInfo: userInfo, transfer: Self.received(transfer)))
        }
        guard let delegate else { return .notNow }
        // Apple's callback: the transfer is acknowledged once it returns. A delegate without it: kept in
        // the quarantine with the reason, never acknowledged and dropped in silence.
        let missing = wcSession.callingDelegate { delegate.session(wcSession, didReceiveUserInfo: PropertyListBridge.untyped(userInfo)) }
        guard let missing else { return .accepted }
        session.delegateDoesNotImplement(missing.rawValue, "the transfer is kept in the quarantine")
        return .rejected("the \(session.role.rawValue) app's delegate does not implement \(missing.rawValue)")
    }

    private func didReceive(_ file: ReceivedFile, _ session: Session) -> ReceiveOutcome {
        guard let delegate else { return .notNow }
        let received = WCSessionFile(
            fileURL: URL(fileURLWithPath: file.path), metadata: file.description.metadata.map(PropertyListBridge.untyped),
            transferIdentifier: file.seq, senderDeviceID: file.senderDeviceID, byteCount: file.description.size, sha256: file.description.sha256.hexString)
        // Apple's callback: the file is the app's to move before this returns; then it is acknowledged
        // (a batch delegate may answer that it could not keep it: then it is not).
        if let batchDelegate { return Self.outcome(batchDelegate.session(wcSession, didReceiveFile: received)) }
        if let missing = wcSession.callingDelegate({ delegate.session(wcSession, didReceive: received) }) {
            session.delegateDoesNotImplement(missing.rawValue, "the file is deleted, as when the callback returns without moving it")
        }
        defer { wcSession.stateMayHaveChanged() }
        return .accepted
    }

    private static func received(_ transfer: ReceivedTransfer) -> WCReceivedTransfer {
        WCReceivedTransfer(transferIdentifier: transfer.seq, senderDeviceID: transfer.senderDeviceID, isComplication: transfer.lane == .complication)
    }

    private static func outcome(_ outcome: WCReceiveOutcome) -> ReceiveOutcome {
        switch outcome {
        case .accepted: .accepted
        case .notNow: .notNow
        case .failed: .failed
        case .insufficientSpace: .insufficientSpace
        case let .rejected(reason): .rejected(reason)
        }
    }

    // MARK: - Finished transfers, state

    private func didFinish(_ session: Session, _ transfer: FinishedTransfer, _ error: Connectivity.WCError?) {
        guard let delegate else { return }
        if transfer.lane == .file {
            let file =
                wcSession.fileTransfer(transfer.seq)
                ?? transfer.file.map {
                    wcSession.registered(
                        FileTransferInfo(seq: transfer.seq, record: $0), fileURL: URL(fileURLWithPath: $0.source), metadata: nil)
                }
                ?? WCSessionFileTransfer(
                    session: wcSession, identifier: transfer.seq, file: WCSessionFile(fileURL: URL(fileURLWithPath: "/"), metadata: nil), totalBytes: 0)
            if error == nil { file.progress.completedUnitCount = file.progress.totalUnitCount }
            wcSession.forgetFileTransfer(transfer.seq)
            delegate.session(wcSession, didFinish: file, error: error.map(WCError.init))
            return
        }
        let seq = transfer.seq
        let known = transfer.userInfo
        let lane = transfer.lane
        let finished = WCSessionUserInfoTransfer(
            session: wcSession, identifier: seq, userInfo: nil, complication: lane == .complication,
            loader: { [weak session] in known ?? (try? session?.outboxUserInfo(seq: seq, lane: lane)) ?? nil })
        delegate.session(wcSession, didFinish: finished, error: error.map(WCError.init))
    }

    /// What the watch last told its app of the companion app (`sessionCompanionAppInstalledDidChange` is
    /// for a change of that, not of the phone app's foreground).
    private var companionInstalled: Bool?

    private func watchStateDidChange(_ session: Session) {
        if session.role == .phone { wcSession.removeWatchDirectoryIfGone(session) }
        wcSession.stateMayHaveChanged()
        guard let delegate else { return }
        if session.role == .watch {
            let installed = session.counterpartAppInstalled
            defer { companionInstalled = installed }
            guard companionInstalled != installed else { return }
            delegate.sessionCompanionAppInstalledDidChange(wcSession)
        } else {
            delegate.sessionWatchStateDidChange(wcSession)
        }
    }
}
