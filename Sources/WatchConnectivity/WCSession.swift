import Connectivity
import AppHost
import Foundation
import Posix
import PropertyLists

/// The session between an app on the simulated phone and its counterpart on the simulated watch, with
/// Apple's names and semantics (`docs/protocol.md` lists where this simulator differs).
///
/// Set the delegate, then `activate()`, as early as possible: what was queued for the app while it did
/// not run is delivered only to an activated session. Every method may be called from any thread; the
/// delegate is called on the device's delegate queue (one thread, not the main one).
///
/// Behind it is the device's WatchConnectivity service (`DeviceHost`): the durable, acknowledged,
/// in-order queue, the link, and the store that outlives the app's process.
open class WCSession: NSObject, @unchecked Sendable {
    /// The session of this app's process.
    public static let `default` = WCSession()

    /// Whether this device supports a session: always, on the simulated devices.
    open class func isSupported() -> Bool { true }

    private var delegateReference: WeakDelegate?
    private lazy var adapter = SessionAdapter(session: self)
    /// The file transfers `transferFile` returned, by id, held weakly: their progress moves as the
    /// counterpart makes bytes durable, and `didFinish` reports the very object the app holds.
    var fileTransfers: [Int64: WeakFileTransfer] = [:]
    let fileTransfersLock = NSLock()
    /// Whether a link's coming up re-reads the observed state (`hasContentPending`, `isReachable`), once.
    private var linksObserved = false
    /// Which of the delegate's defaults the last call reached (`DelegateImplements.swift`).
    let delegateReach = DelegateReach()

    override init() {
        super.init()
    }

    /// The delegate (held weakly, as Apple's is). Set it before `activate()`.
    open weak var delegate: (any WCSessionDelegate)? {
        get { delegateReference?.value }
        set {
            delegateReference = newValue.map(WeakDelegate.init)
            guard let host else { return }
            host.mailbox.sync { host.appDelegate = newValue == nil ? nil : adapter }
        }
    }

    // MARK: - The device

    /// The host of this process — composed with the app (RunWay's executables), or started from the
    /// environment the OS launched this app with (`phone-os --app`) — or nil when the process is not an
    /// app on a simulated device.
    var host: DeviceHost? { DeviceHost.current ?? DeviceHost.fromEnvironment() }

    /// Runs `body` with the engine on the device's thread; `fallback` when there is no device.
    func onDevice<R>(_ fallback: R, _ body: (Session) -> R) -> R {
        guard let host, let session = host.session else { return fallback }
        return host.mailbox.sync { body(session) }
    }

    /// `onDevice` for work that throws.
    func onDeviceThrowing<R>(_ fallback: R, _ body: (Session) throws -> R) throws -> R {
        guard let host, let session = host.session else { return fallback }
        return try host.mailbox.sync { try body(session) }
    }

    /// Posts `body` to the delegate queue (an error reported later, as Apple's framework does).
    func later(_ body: @escaping () -> Void) {
        if let host { return host.mailbox.post(body) }
        nonisolated(unsafe) let work = body
        DispatchQueue.global().async { work() }
    }

    // MARK: - Activation

    /// Activates the session; `session(_:activationDidCompleteWith:error:)` follows on the delegate queue.
    open func activate() {
        guard let delegate else {
            FileHandle.standardError.write(
                Data("WCSession.activate(): set a delegate first (WCErrorCodeSessionMissingDelegate 7003); nothing was activated\n".utf8))
            return
        }
        guard let host else {
            let error = WCError(
                .sessionNotSupported,
                description:
                    "this process is not an app on a simulated device: start it with phone-os --app PATH (or runway up --phone-app PATH)")
            later { [weak self] in
                guard let self else { return }
                delegate.session(self, activationDidCompleteWith: .notActivated, error: error)
            }
            return
        }
        host.mailbox.sync {
            host.appDelegate = adapter
            if !linksObserved {
                linksObserved = true
                host.onLinkEstablished.append { [weak self] _ in self?.stateMayHaveChanged() }
            }
            host.requestActivation()
        }
    }

    /// `.notActivated` until the delegate has heard `session(_:activationDidCompleteWith:error:)`.
    open var activationState: WCSessionActivationState {
        onDevice(.notActivated) { session -> WCSessionActivationState in
            // Activated by the system for its own traffic: not the app's until it activates.
            if session.appHeld { return .notActivated }
            return switch session.announcedActivationState {
            case .notActivated: .notActivated
            case .inactive: .inactive
            case .activated: .activated
            }
        }
    }

    /// Whether the counterpart has content for this app still on its way: what its last handshake said it
    /// had pending (its queued transfers) less what has arrived since, or a file half-received.
    open var hasContentPending: Bool { onDevice(false) { $0.hasContentPending } }

    // MARK: - The counterpart

    /// iOS: a watch is paired with this phone (read again from the device, so a new pairing shows).
    open var isPaired: Bool {
        onDevice(false) { session in
            if session.activationState == .activated { session.reloadPairing() }
            return session.isPaired
        }
    }

    /// iOS: the paired watch has this app's watch app installed.
    open var isWatchAppInstalled: Bool { onDevice(false) { $0.isWatchAppInstalled } }

    /// iOS: the app's complication is on the paired watch's active watch face (`runway watch complication
    /// on|off`), as the watch last said; `sessionWatchStateDidChange` tells of a change.
    open var isComplicationEnabled: Bool {
        onDevice(false) { $0.role == .phone ? $0.counterpartComplicationEnabled : $0.localComplicationEnabled }
    }

    /// iOS: how many `transferCurrentComplicationUserInfo` calls remain today (50 a day on the device's
    /// clock while the complication is on the watch face, 0 while it is not).
    open var remainingComplicationUserInfoTransfers: Int { onDevice(0) { (try? $0.remainingComplicationUserInfoTransfers()) ?? 0 } }

    /// iOS: a directory for this app's data about the paired watch: inside the app's container, one per
    /// pairing; nil while no watch with the watch app is paired.
    open var watchDirectoryURL: URL? {
        guard let container = host?.configuration.container else { return nil }
        return onDevice(nil) { session -> URL? in
            guard session.role == .phone, session.isPaired, session.isWatchAppInstalled, let pairing = session.pairing else { return nil }
            let url = Self.watchDirectory(container: container, pairingID: pairing.pairingID)
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
    }

    /// One directory per paired watch (Apple: "specific to the currently paired and active Apple Watch").
    static func watchDirectory(container: String, pairingID: String) -> URL {
        URL(fileURLWithPath: container).appendingPathComponent("Library/Application Support/Watch/\(pairingID)")
    }

    /// Apple deletes the directory when the watch app is uninstalled or the watch unpaired: so here, when
    /// the phone learns the watch app is gone.
    func removeWatchDirectoryIfGone(_ session: Session) {
        guard session.role == .phone, !session.isWatchAppInstalled, let pairing = session.pairing, let container = host?.configuration.container
        else { return }
        try? FileManager.default.removeItem(at: Self.watchDirectory(container: container, pairingID: pairing.pairingID))
    }

    /// watchOS: the phone has the iOS app installed.
    open var isCompanionAppInstalled: Bool { onDevice(false) { $0.role == .watch && $0.counterpartAppInstalled } }

    /// watchOS: the iPhone is unreachable because it has not been unlocked since it restarted (`runway
    /// phone reboot`, then `unlock`): its system said so when it turned the link away. False again once a
    /// link is up; `sessionReachabilityDidChange` tells of both.
    open var iOSDeviceNeedsUnlockAfterRebootForReachability: Bool { onDevice(false) { $0.role == .watch && $0.counterpartNeedsUnlockAfterReboot } }

    /// The counterpart can be messaged now (Apple's asymmetric rule: `docs/protocol.md`).
    open var isReachable: Bool { onDevice(false) { $0.isReachable } }

    // MARK: - Application context

    /// The last context this app sent.
    open var applicationContext: [String: Any] { onDevice([:]) { PropertyListBridge.untyped($0.applicationContext) } }

    /// The last context the counterpart sent.
    open var receivedApplicationContext: [String: Any] { onDevice([:]) { PropertyListBridge.untyped($0.receivedApplicationContext) } }

    /// Replaces the context the counterpart will see (only the newest is ever delivered).
    open func updateApplicationContext(_ applicationContext: [String: Any]) throws {
        let typed = try PropertyListBridge.typed(applicationContext)
        try updateApplicationContext(typed: typed)
    }

    // MARK: - Messages

    /// Sends a message while the counterpart is reachable. With a `replyHandler` the counterpart's
    /// `session(_:didReceiveMessage:replyHandler:)` answers; without one it hears
    /// `session(_:didReceiveMessage:)`. Exactly one of the handlers runs (the error handler for a
    /// failure), on the delegate queue.
    open func sendMessage(
        _ message: [String: Any], replyHandler: (([String: Any]) -> Void)?, errorHandler: (((any Error)) -> Void)? = nil
    ) {
        let typed: [String: PropertyListValue]
        do {
            typed = try PropertyListBridge.typed(message)
        } catch {
            nonisolated(unsafe) let handler = errorHandler
            later { handler?(error) }
            return
        }
        nonisolated(unsafe) let reply = replyHandler
        nonisolated(unsafe) let failure = errorHandler
        sendMessage(typed: typed, replyExpected: replyHandler != nil) { result in
            switch result {
            case let .success(answer): reply?(PropertyListBridge.untyped(answer))
            case let .failure(error): failure?(error)
            }
        }
    }

    /// Sends bytes the app encoded itself while the counterpart is reachable (at most 65,536 bytes, else
    /// `payloadTooLarge` 7009). With a `replyHandler` the counterpart's
    /// `session(_:didReceiveMessageData:replyHandler:)` answers with bytes; without one it hears
    /// `session(_:didReceiveMessageData:)`. Exactly one of the handlers runs (the error handler for a
    /// failure), on the delegate queue; without a reply handler nothing runs on success.
    open func sendMessageData(_ data: Data, replyHandler: ((Data) -> Void)?, errorHandler: (((any Error)) -> Void)? = nil) {
        nonisolated(unsafe) let reply = replyHandler
        nonisolated(unsafe) let failure = errorHandler
        sendMessageData(bytes: [UInt8](data), replyExpected: replyHandler != nil) { result in
            switch result {
            case let .success(answer): reply?(Data(answer))
            case let .failure(error): failure?(error)
            }
        }
    }

    // MARK: - userInfo transfers

    /// Queues `userInfo` for the counterpart: durable before this returns, delivered in order, at least
    /// once, also after either app exits. A transfer that cannot be queued (not activated, not a
    /// property list, too large) finishes at once with the error in `session(_:didFinish:error:)`.
    @discardableResult
    open func transferUserInfo(_ userInfo: [String: Any] = [:]) -> WCSessionUserInfoTransfer {
        do {
            let typed = try PropertyListBridge.typed(userInfo)
            return try transferUserInfo(typed: [typed])[0]
        } catch {
            return failedTransfer(userInfo, error)
        }
    }

    /// iOS: sends complication data to the watch app, ahead of any queued userInfo, while today's budget
    /// lasts (`remainingComplicationUserInfoTransfers`); after that — or while the complication is not
    /// on the watch face — as a plain `transferUserInfo` (`isCurrentComplicationInfo` false). Durable
    /// before it returns; a failure finishes the transfer at once with the error in `didFinish`.
    @discardableResult
    open func transferCurrentComplicationUserInfo(_ userInfo: [String: Any] = [:]) -> WCSessionUserInfoTransfer {
        do {
            let typed = try PropertyListBridge.typed(userInfo)
            return try transferCurrentComplicationUserInfo(typed: typed)
        } catch {
            return failedTransfer(userInfo, error, complication: true)
        }
    }

    /// The transfers queued and not yet delivered, oldest first: complication transfers (sent first), then userInfo.
    open var outstandingUserInfoTransfers: [WCSessionUserInfoTransfer] {
        onDevice([]) { session in
            let complications = ((try? session.outstandingComplicationTransfers(limit: Int.max)) ?? []).map { transfer in
                WCSessionUserInfoTransfer(
                    session: self, identifier: transfer.seq, userInfo: PropertyListBridge.untyped(transfer.userInfo), complication: true)
            }
            return complications
                + ((try? session.outstandingUserInfoTransfers(limit: Int.max)) ?? []).map { item in
                    WCSessionUserInfoTransfer(session: self, identifier: item.transfer.seq, userInfo: PropertyListBridge.untyped(item.transfer.userInfo))
                }
        }
    }

    private func failedTransfer(_ userInfo: [String: Any], _ error: any Error, complication: Bool = false) -> WCSessionUserInfoTransfer {
        let transfer = WCSessionUserInfoTransfer(session: nil, identifier: 0, userInfo: userInfo, complication: complication)
        later { [weak self] in
            guard let self, let delegate = self.delegate else { return }
            delegate.session(self, didFinish: transfer, error: error)
        }
        return transfer
    }

    func isOutstanding(_ identifier: Int64, complication: Bool = false) -> Bool {
        onDevice(false) { (try? $0.transferState(seq: identifier, lane: complication ? .complication : .userInfo).outstanding) ?? false }
    }

    func cancelTransfer(_ identifier: Int64, complication: Bool = false) {
        onDevice(()) { _ = complication ? try? $0.cancelComplicationTransfer(seq: identifier) : try? $0.cancelUserInfoTransfer(seq: identifier) }
    }

    func isCurrentComplication(_ identifier: Int64) -> Bool { onDevice(false) { $0.isCurrentComplication(seq: identifier) } }

    // MARK: - Files

    /// Sends a file to the counterpart: copied into the session's queue before this returns (the app may
    /// delete its own then), sent in chunks in order with other files, checked end to end (SHA-256),
    /// resumed — not restarted — after either side stops. The counterpart's app gets it in
    /// `session(_:didReceive:)`; this app hears `session(_:didFinish:error:)`. A file that cannot be read
    /// is 7013, one over 1 GiB (or metadata over 65,536 bytes) 7009, metadata that is not a property list
    /// 7010, a full disk 7015: the transfer finishes at once with that error, nothing queued.
    @discardableResult
    open func transferFile(_ file: URL, metadata: [String: Any]?) -> WCSessionFileTransfer {
        queueFile(file, metadata: metadata)
    }

    /// The file transfers queued and not yet delivered, oldest first, with their progress.
    open var outstandingFileTransfers: [WCSessionFileTransfer] { queuedFiles }
}

extension WCError.Code {
    /// The engine's code as the app's: the same number (every engine code has its case here:
    /// WCErrorCodeTests).
    init(_ code: Connectivity.WCErrorCode) { self = Self(rawValue: code.rawValue) ?? .genericError }
}

/// The delegate, held weakly.
private final class WeakDelegate {
    weak var value: (any WCSessionDelegate)?
    init(_ value: any WCSessionDelegate) { self.value = value }
}

extension WCError {
    /// The engine's error with its code and words.
    init(_ error: Connectivity.WCError) {
        self.init(Code(error.code), description: error.message.isEmpty ? "\(error.code.name)" : error.message)
    }

    /// Any error as the public one: the engine's keep their code, anything else is `genericError`.
    static func from(_ error: any Error) -> any Error {
        if let engine = error as? Connectivity.WCError { return WCError(engine) }
        return error
    }
}
