import Connectivity
import AppHost
import Foundation
import PropertyLists

// MARK: - RunWay Pair's extensions to Apple's API
//
// Not in Apple's WatchConnectivity, and not needed to use the session: Apple's API alone works (the
// source-compatibility test compiles an iOS delegate unchanged). They exist for the hot path — typed
// values instead of `[String: Any]`, a batch of received transfers in one transaction of the app's —
// and for what the simulator shows beyond Apple's API (the counterpart's app version).
// Any app may use them; RunWay's does. `docs/protocol.md` lists them.

/// What an app did with a received transfer (the batch delegate's answer).
public enum WCReceiveOutcome: Sendable, Equatable {
    /// Taken (saved in the app's transaction, or deliberately ignored): acknowledged once the batch
    /// commits.
    case accepted
    /// The app cannot take it now: neither it nor anything after it is acknowledged; resent later.
    case notNow
    /// The app's write failed: the whole batch is rolled back and resent.
    case failed
    /// The app's store is full: as `failed`, and the sender hears `insufficientSpace` (7015).
    case insufficientSpace
    /// The app will never take it (malformed by its rules): kept in the system's quarantine, never dropped.
    case rejected(String)
}

/// A received transfer as the batch delegate sees it.
public struct WCReceivedTransfer: Sendable {
    /// The sender's id for it: increasing, unique per sending device (and queue).
    public let transferIdentifier: Int64
    /// The sending device's id.
    public let senderDeviceID: String
    /// Sent with `transferCurrentComplicationUserInfo` within the day's budget: complication data
    /// (delivered through `didReceiveUserInfo`, as on watchOS; this says which it was).
    public var isComplication = false
}

/// A delegate that takes received userInfo in batches, in a transaction of its own (group commit: one
/// durable write per batch, not per transfer), and may read each transfer straight from its encoding.
///
/// Every batch: `sessionWillReceiveUserInfoBatch` → for each transfer, `didReceiveEncodedUserInfo`
/// (return nil to get `didReceiveUserInfo(_:transfer:)` with the decoded dictionary instead) →
/// `sessionWillCommitUserInfoBatch` (make it durable; throwing rolls the batch back and nothing is
/// acknowledged) → `sessionDidCommitUserInfoBatch` (acknowledged next) or
/// `sessionDidRollBackUserInfoBatch`.
public protocol WCSessionBatchDelegate: WCSessionDelegate {
    func sessionWillReceiveUserInfoBatch(_ session: WCSession)
    /// `userInfo` is valid during the call only (read it with `PropertyLists.EncodedDictionary`).
    func session(_ session: WCSession, didReceiveEncodedUserInfo userInfo: UnsafeRawBufferPointer, transfer: WCReceivedTransfer) -> WCReceiveOutcome?
    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: PropertyListValue], transfer: WCReceivedTransfer) -> WCReceiveOutcome
    func sessionWillCommitUserInfoBatch(_ session: WCSession) throws
    func sessionDidCommitUserInfoBatch(_ session: WCSession)
    func sessionDidRollBackUserInfoBatch(_ session: WCSession, error: any Error)
    /// A received file (Apple's `session(_:didReceive:)`), answering what became of it: only an
    /// `.accepted` file is acknowledged; `.failed`, `.insufficientSpace` or `.notNow` leave it with the
    /// system, which delivers it again on the next link; `.rejected` tells the sender it was refused.
    /// The default calls `session(_:didReceive:)` and answers `.accepted`, as Apple's session does.
    func session(_ session: WCSession, didReceiveFile file: WCSessionFile) -> WCReceiveOutcome
}

extension WCSessionBatchDelegate {
    public func sessionWillReceiveUserInfoBatch(_ session: WCSession) {}
    public func session(_ session: WCSession, didReceiveEncodedUserInfo userInfo: UnsafeRawBufferPointer, transfer: WCReceivedTransfer) -> WCReceiveOutcome? {
        nil
    }
    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: PropertyListValue], transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        self.session(session, didReceiveUserInfo: PropertyListBridge.untyped(userInfo))
        return .accepted
    }
    public func sessionWillCommitUserInfoBatch(_ session: WCSession) throws {}
    public func sessionDidCommitUserInfoBatch(_ session: WCSession) {}
    public func sessionDidRollBackUserInfoBatch(_ session: WCSession, error: any Error) {}
    public func session(_ session: WCSession, didReceiveFile file: WCSessionFile) -> WCReceiveOutcome {
        self.session(session, didReceive: file)
        return .accepted
    }
}

extension WCSession {
    /// Queues several transfers in one durable write (one fsync for the batch), typed. Throws what would
    /// have failed them (7004, 7006, 7009, 7010); nothing is queued then.
    @discardableResult
    public func transferUserInfo(typed batch: [[String: PropertyListValue]]) throws -> [WCSessionUserInfoTransfer] {
        guard let host, host.session != nil else { throw WCError(.sessionNotActivated, description: "this process is not an app on a simulated device") }
        let transfers = try host.mailbox.sync { () throws -> [UserInfoTransfer] in
            do { return try host.session.transferUserInfo(batch: batch) } catch { throw WCError.from(error) }
        }
        return transfers.map { WCSessionUserInfoTransfer(session: self, identifier: $0.seq, userInfo: nil, loader: { [batch = $0.userInfo] in batch }) }
    }

    /// `transferCurrentComplicationUserInfo`, typed: throws what would have failed it (7004, 7006,
    /// 7009, 7010); nothing is queued then.
    @discardableResult
    public func transferCurrentComplicationUserInfo(typed userInfo: [String: PropertyListValue]) throws -> WCSessionUserInfoTransfer {
        guard let host, host.session != nil else { throw WCError(.sessionNotActivated, description: "this process is not an app on a simulated device") }
        let transfer = try host.mailbox.sync { () throws -> UserInfoTransfer in
            do { return try host.session.transferCurrentComplicationUserInfo(userInfo) } catch { throw WCError.from(error) }
        }
        stateMayHaveChangedLater()
        return WCSessionUserInfoTransfer(
            session: self, identifier: transfer.seq, userInfo: nil, complication: transfer.lane == .complication, loader: { userInfo })
    }

    /// Queues a series made a slice at a time (`next` returns nil when done) in one durable write: all
    /// of it or none. Returns the first and last transfer ids (0 when empty). Must be called on the
    /// delegate queue (from a delegate call or the app's own work there).
    public func transferUserInfo(slices next: () throws -> [[String: PropertyListValue]]?) throws -> (first: Int64, last: Int64) {
        guard let host, let session = host.session else {
            throw WCError(.sessionNotActivated, description: "this process is not an app on a simulated device")
        }
        precondition(host.mailbox.isOnLoopThread, "transferUserInfo(slices:) runs on the delegate queue")
        do { return try session.transferUserInfo(slices: next) } catch { throw WCError.from(error) }
    }

    /// `updateApplicationContext(_:)`, typed; returns the context's version (it grows with each new
    /// context; an identical one keeps the version it had).
    @discardableResult
    public func updateApplicationContext(typed context: [String: PropertyListValue]) throws -> Int64 {
        guard let host, host.session != nil else { throw WCError(.sessionNotActivated, description: "this process is not an app on a simulated device") }
        return try host.mailbox.sync { () throws -> Int64 in
            do { return try host.session.updateApplicationContext(context) } catch { throw WCError.from(error) }
        }
    }

    /// `[String: Any]` of property-list types as typed values; anything else is `payloadUnsupportedTypes`.
    public static func typed(_ dictionary: [String: Any]) throws -> [String: PropertyListValue] { try PropertyListBridge.typed(dictionary) }

    /// Typed values as Apple's API gives them.
    public static func untyped(_ dictionary: [String: PropertyListValue]) -> [String: Any] { PropertyListBridge.untyped(dictionary) }

    /// `applicationContext` and `receivedApplicationContext`, typed.
    public var typedApplicationContext: [String: PropertyListValue] { onDevice([:]) { $0.applicationContext } }
    public var typedReceivedApplicationContext: [String: PropertyListValue] { onDevice([:]) { $0.receivedApplicationContext } }

    /// `sendMessage`, typed; `completion` runs once, on the delegate queue.
    public func sendMessage(
        typed message: [String: PropertyListValue], replyExpected: Bool, timeoutMilliseconds: UInt64? = nil,
        completion: @escaping (Result<[String: PropertyListValue], WCError>) -> Void
    ) {
        sendThroughSession(completion) { session, done in
            session.sendMessage(message, replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds, completion: done)
        }
    }

    /// `sendMessageData` with bytes and a `Result`; `completion` runs once, on the delegate queue (empty
    /// bytes for a message without a reply, once delivered).
    public func sendMessageData(
        bytes: [UInt8], replyExpected: Bool, timeoutMilliseconds: UInt64? = nil, completion: @escaping (Result<[UInt8], WCError>) -> Void
    ) {
        sendThroughSession(completion) { session, done in
            session.sendMessageData(bytes, replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds, completion: done)
        }
    }

    /// Sends with the device's session, on its loop; `completion` takes the result once, on the delegate
    /// queue. Not an app on a simulated device, or no session yet: `sessionNotActivated` at once.
    private func sendThroughSession<Reply>(
        _ completion: @escaping (Result<Reply, WCError>) -> Void,
        _ send: (Session, @escaping (Result<Reply, Connectivity.WCError>) -> Void) -> Void
    ) {
        guard let host, host.session != nil else {
            return completion(.failure(WCError(.sessionNotActivated, description: "this process is not an app on a simulated device")))
        }
        nonisolated(unsafe) let done = completion
        host.mailbox.sync {
            send(host.session) { result in done(result.mapError(WCError.init)) }
        }
    }

    /// A rule of the counterpart's app, checked by `transferUserInfo` before anything is queued: a
    /// reason refuses the transfer with `payloadUnsupportedTypes` (7010). Both RunWay apps set the rule
    /// their counterpart decodes with, so nothing accepted here is refused on arrival.
    public func setUserInfoValidator(_ validator: (@Sendable ([String: PropertyListValue]) -> String?)?) {
        onDevice(()) { $0.userInfoValidator = validator }
    }

    /// The counterpart app's version, as its last handshake said (nil before the first).
    public var counterpartAppVersion: String? { onDevice(nil) { $0.counterpartAppVersion } }

    /// This app's version, as the session says it to the counterpart.
    public var localAppVersion: String { host?.configuration.session.appVersion ?? "" }

    /// This side's app as the device's system last reported it to the counterpart: installed, and in
    /// the foreground (the watch: what makes the phone see it reachable).
    public var isLocalAppInstalled: Bool { onDevice(true) { $0.localAppInstalled } }
    public var isLocalAppActive: Bool { onDevice(false) { $0.localAppActive } }

    /// The system brings this app to the foreground (a mirrored workout starting on the watch).
    public func bringLocalAppToForeground() throws {
        try onDeviceThrowing(()) { session in
            guard !session.localAppActive else { return }
            try session.setLocalAppState(installed: session.localAppInstalled, active: true)
        }
    }

    /// The device's id (for records of where a flight came from).
    public var deviceIdentifier: String { onDevice("") { $0.deviceID } }

    /// The name of the activation state, as the simulator's tools print it (`activated`).
    public var activationStateName: String { onDevice("notActivated") { $0.announcedActivationState.rawValue } }
}
