import Posix
import PropertyLists

/// An app's presence on a device, as the session knows it.
struct AppPresence: Equatable {
    var installed: Bool
    var active: Bool
    /// The watch: the app's complication is on the active watch face (`runway watch complication on`).
    var complicationEnabled = false
}

/// What a session reads from its store at activation: who it is, whom it is paired with, and the two
/// apps' states as they were last known (kept across restarts).
struct LoadedDeviceState {
    var deviceID: String
    var pairing: Pairing?
    var local: AppPresence
    var counterpart: AppPresence
    var counterpartVersion: String?
}

/// A log line the core asks its shell to write.
struct LogLine: Equatable {
    let level: Logger.Level
    let event: String
    let fields: [Field]

    struct Field: Equatable {
        let key: String
        let value: String
    }

    init(_ level: Logger.Level, _ event: String, _ fields: (String, CustomStringConvertible)...) {
        self.level = level
        self.event = event
        self.fields = fields.map { Field(key: $0.0, value: $0.1.description) }
    }
}

/// What a message carries: a property-list dictionary (`sendMessage`) or bytes the app encoded itself
/// (`sendMessageData`), and so what its reply carries.
package enum MessageBody: Sendable, Equatable {
    case dictionary(UserInfo)
    case data([UInt8])
}

/// The app's handler for one message: called exactly once, by the shell.
typealias MessageCompletion = (Result<MessageBody, WCError>) -> Void

/// What happened to a session: the events its shell feeds `SessionCore.handle`, from the app (activate,
/// deactivate, send a message, change the app's state), from the link (a connection opened or closed, a
/// frame read, a connection attempt failed), from the store (what activation loaded, a receive
/// transaction's end) and from the loop (a time-out).
enum SessionEvent {
    // Activation.
    /// The app activated its session (`WCSession.activate()`). After a system activation it joins the
    /// session the system runs: it hears `activationDidComplete` and what finished meanwhile.
    case activationRequested
    /// The device's system activates the session for its own traffic (HealthKit's workouts, the watch
    /// face's settings) in an app that has not activated its `WCSession` (issue 49: an app needs no session
    /// to launch). The link comes up; the app's traffic is not taken and the app is told nothing until it
    /// activates (`SessionCore.appHeld`).
    case systemActivationRequested
    case deviceStateLoaded(LoadedDeviceState)
    case activationFailed(any Error)
    case activationSucceeded
    /// Activation will complete once the first link attempt settles (a connection the OS handed over, or
    /// the watch's first connect): the app hears `activationDidComplete` with the counterpart's state
    /// already true (`SessionCore.announcementAwaitsLink`). Fed before `activationSucceeded`.
    case activationAwaitsFirstLink
    /// The first link attempt settled without a link (failed, closed, out of range, the phone's system
    /// answered, or its time ran out): the held `activationDidComplete` is told now.
    case firstLinkSettled
    case deactivationRequested
    case deactivationFinished
    case deactivationSettled
    /// The pairing was read again (`runway pair` may have changed it), with what the store recorded of
    /// the counterpart's app for it.
    case pairingReloaded(Pairing?, recordedCounterpartInstalled: Bool?)
    /// The inactive → notActivated half of a watch switch, an iteration after the first.
    case switchSettled
    /// `runway phone switch-watch`: the active watch is being switched (the phone's session goes inactive
    /// now; the shell delivers what the old watch already sent, closes its link, swaps the queues).
    case watchSwitchBegan(from: String, to: String)
    // The link.
    /// A handshake finished; `replacing` when another link was up (it is closed first).
    case linkOpening(replacing: Bool)
    case linkUp(Handshake)
    /// The store's side of the new link is done (resume point, finished transfers): it is in use; each
    /// lane's receive cursor, as the store has it.
    case linkEstablished(receiveCursors: Lanes<Int64>)
    case linkResumeFailed(String)
    case linkClosed(reason: String)
    case counterpartAppStateReported(installed: Bool?, active: Bool?, complicationEnabled: Bool? = nil)
    /// The counterpart's system said what its app is without a link (a declined `hello`).
    case counterpartStateOutsideLink(installed: Bool?, active: Bool?)
    /// The counterpart turned our handshake away with this error.
    case refusedByCounterpart(WCError)
    /// The watch: nobody listens on the phone's link socket (false: off or out of range), or the link was
    /// taken down.
    case counterpartOutOfRange
    /// Transfers (or a file) of the counterpart's arrived on this link: what is still pending shrinks.
    case contentArrived(count: Int)
    /// The counterpart made everything up to here durable (the highest acknowledgement of one read).
    case acknowledgementReceived(upTo: Int64, lane: TransferLane = .userInfo)
    case localAppStateChanged(AppPresence)
    /// The watch: a workout session runs (or ended), which keeps its app running with a high priority in
    /// the background — reachable to the phone as if in the foreground (Apple's `isReachable`).
    case localWorkoutChanged(running: Bool)
    // Receiving.
    case batchCommitted(ReceiveTransaction, milliseconds: Double)
    case batchRolledBack(ReceiveTransaction, error: any Error, storeFull: Bool)
    // Messages (`SessionCoreMessages.swift`).
    /// The app sent a message; `completion` is its handler, handed back in the action that settles it
    /// (the core never calls it).
    case messageSendRequested(
        MessageBody, replyExpected: Bool, timeoutMilliseconds: UInt64, transportCanWake: Bool, completion: MessageCompletion)
    case messageFrameReceived(FrameType, id: Int64, body: [UInt8])
    case messageTimedOut(id: Int64, error: WCError)
    case messagesFailed(WCError)
    case messagesAwaitingLinkMaySend
    case linkAttemptFailed(WCError)
}

/// What the core asks its shell to do, in order.
enum SessionAction {
    /// Finish activation at the end of this loop iteration (the store is read then).
    case completeActivationSoon
    /// A callback for the app's handler, handed on unchanged by the shell (`Session.emit`).
    case tell(SessionCallback)
    case log(LogLine)
    /// Queue frames on the current link.
    case send([UInt8])
    /// Close the current link (sending `error` first, if any). The shell hears `linkClosed` if it was up.
    case closeLink(WCError?, reason: String)
    /// The counterpart broke a lane's rule: log `link.protocol-violation` with this reason, send a
    /// `genericError` 7001 and close the current link.
    case protocolViolation(String)
    /// Forget the current link (it is closed, or closing).
    case dropLink
    /// Tell whoever watches for new links (`onLinkEstablished`).
    case announceLink(Handshake)
    case saveCounterpartState(AppPresence, version: String?)
    case sendApplicationContextIfNeeded
    case pump
    /// The app joined a session its system ran (`SessionCore.appJoins`): if the shell left app traffic
    /// unread on the link meanwhile, it closes the link, and the counterpart resends it on the next.
    case restartLinkIfHeld
    /// Tell the app of transfers acknowledged and not yet reported (`didFinish`); `replayed` at activation.
    case reportFinishedTransfers(replayed: Bool)
    /// Delete what the counterpart acknowledged from the outbox.
    case releaseOutbox(upTo: Int64, lane: TransferLane)
    /// Handle this event now, before the actions after it (what it decides depends on what came before).
    case then(SessionEvent)
    /// Handle this event at the end of the loop's iteration.
    case later(SessionEvent)
    // Messages.
    /// Keep `completion` for message `id`, with a time-out that fails it with `timeoutError`.
    case messageAccepted(id: Int64, timeoutMilliseconds: UInt64, timeoutError: WCError, completion: MessageCompletion)
    /// Fail the app's handler at the end of this loop iteration (never inside its own call).
    case messageRefused(WCError, completion: MessageCompletion)
    case completeMessage(id: Int64, Result<MessageBody, WCError>)
    /// Hand a message (a dictionary or data) to the app: with a handler for its reply on the link it came
    /// by (`replyExpected`), or without one and then `messageDelivered` — or, either way, `deliveryFailed`
    /// (7014) when the app's delegate does not implement the method for it.
    case deliverMessage(id: Int64, MessageBody, replyExpected: Bool)
    case wakeCounterpart
    // Receiving.
    /// Acknowledge everything up to here, if the store may still acknowledge.
    case acknowledge(upTo: Int64, lane: TransferLane)
    /// A place the crash tests may kill the process (`CrashPoint`).
    case crashPoint(StaticString)
}
