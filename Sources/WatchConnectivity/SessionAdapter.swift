import Connectivity
import Digest
import Foundation
import PropertyLists

/// The engine's delegate, speaking to the app's `WCSessionDelegate` in Apple's terms: typed values to
/// `[String: Any]`, the engine's errors to `WCError`, and a batch delegate's extras when the app has them.
/// Runs on the device's delegate queue, like every call it makes.
final class SessionAdapter: SessionDelegate {
    unowned let wcSession: WCSession

    init(session: WCSession) { wcSession = session }

    private var delegate: (any WCSessionDelegate)? { wcSession.delegate }
    private var batchDelegate: (any WCSessionBatchDelegate)? { wcSession.delegate as? any WCSessionBatchDelegate }

    func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
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

    func sessionDidBecomeInactive(_ session: Session) {
        wcSession.stateMayHaveChanged()
        delegate?.sessionDidBecomeInactive(wcSession)
    }

    func sessionDidDeactivate(_ session: Session) {
        wcSession.stateMayHaveChanged()
        delegate?.sessionDidDeactivate(wcSession)
    }

    // MARK: - Receiving userInfo

    func sessionWillReceiveTransfers(_ session: Session) { batchDelegate?.sessionWillReceiveUserInfoBatch(wcSession) }

    func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome? {
        guard let batchDelegate else { return nil }
        return batchDelegate.session(wcSession, didReceiveEncodedUserInfo: bytes, transfer: Self.received(transfer)).map(Self.outcome)
    }

    func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        if let batchDelegate {
            return Self.outcome(batchDelegate.session(wcSession, didReceiveUserInfo: userInfo, transfer: Self.received(transfer)))
        }
        guard let delegate else { return .notNow }
        // Apple's callback: the transfer is acknowledged once it returns.
        delegate.session(wcSession, didReceiveUserInfo: PropertyListBridge.untyped(userInfo))
        return .accepted
    }

    func sessionWillCommitReceivedTransfers(_ session: Session) throws { try batchDelegate?.sessionWillCommitUserInfoBatch(wcSession) }
    func sessionDidCommitReceivedTransfers(_ session: Session) {
        batchDelegate?.sessionDidCommitUserInfoBatch(wcSession)
        // What was pending has arrived (`hasContentPending`).
        wcSession.stateMayHaveChanged()
    }

    func session(_ session: Session, didRollBackReceivedTransfers error: Error) {
        batchDelegate?.sessionDidRollBackUserInfoBatch(wcSession, error: error)
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

    // MARK: - Finished transfers, contexts, messages, state

    func session(_ session: Session, didFinish transfer: FinishedTransfer, error: Connectivity.WCError?) {
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

    func session(_ session: Session, didReceiveApplicationContext context: UserInfo) {
        delegate?.session(wcSession, didReceiveApplicationContext: PropertyListBridge.untyped(context))
    }

    func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {
        guard let delegate else { return }
        delegate.session(wcSession, didReceiveMessage: PropertyListBridge.untyped(message)) { answer in
            // A reply that is not a property list cannot travel: the sender's time-out tells it so.
            guard let typed = try? PropertyListBridge.typed(answer) else { return }
            reply(typed)
        }
    }

    func session(_ session: Session, didReceiveMessage message: UserInfo) {
        delegate?.session(wcSession, didReceiveMessage: PropertyListBridge.untyped(message))
    }

    func session(_ session: Session, didReceiveMessageData data: [UInt8], reply: @escaping ([UInt8]) -> Void) {
        guard let delegate else { return }
        delegate.session(wcSession, didReceiveMessageData: Data(data)) { answer in reply([UInt8](answer)) }
    }

    func session(_ session: Session, didReceiveMessageData data: [UInt8]) {
        delegate?.session(wcSession, didReceiveMessageData: Data(data))
    }

    func session(_ session: Session, didReceiveFile file: ReceivedFile) -> ReceiveOutcome {
        guard let delegate else { return .notNow }
        let received = WCSessionFile(
            fileURL: URL(fileURLWithPath: file.path), metadata: file.description.metadata.map(PropertyListBridge.untyped),
            transferIdentifier: file.seq, senderDeviceID: file.senderDeviceID, byteCount: file.description.size, sha256: file.description.sha256.hexString)
        // Apple's callback: the file is the app's to move before this returns; then it is acknowledged
        // (a batch delegate may answer that it could not keep it: then it is not).
        if let batchDelegate { return Self.outcome(batchDelegate.session(wcSession, didReceiveFile: received)) }
        delegate.session(wcSession, didReceive: received)
        defer { wcSession.stateMayHaveChanged() }
        return .accepted
    }

    func session(_ session: Session, fileTransfer seq: Int64, didProgress completed: Int64, of total: Int64) {
        guard let transfer = wcSession.fileTransfer(seq) else { return }
        transfer.progress.completedUnitCount = min(completed, transfer.progress.totalUnitCount)
    }

    func sessionReachabilityDidChange(_ session: Session) {
        wcSession.stateMayHaveChanged()
        delegate?.sessionReachabilityDidChange(wcSession)
    }

    /// What the watch last told its app of the companion app (`sessionCompanionAppInstalledDidChange` is
    /// for a change of that, not of the phone app's foreground).
    private var companionInstalled: Bool?

    func sessionWatchStateDidChange(_ session: Session) {
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
