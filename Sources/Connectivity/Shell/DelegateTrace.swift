import Posix
import PropertyLists

/// One call the session made to its delegate, as `runway {phone|watch} events` shows it.
///
/// Kept small: a received userInfo is its sequence number, keys and encoded size, never its payload (a
/// flight's samples); a context or message carries its payload only when it encodes to at most
/// `DelegateTrace.payloadLimit` bytes. So the trace's memory is bounded by its ring, whatever arrives.
package struct DelegateEvent: Sendable {
    package enum Call: Sendable {
        case activationDidComplete(state: ActivationState, error: String?)
        case didBecomeInactive
        case didDeactivate
        /// `complication`: it came in the complication lane (`transferCurrentComplicationUserInfo`).
        case didReceiveUserInfo(seq: Int64, keys: [String], bytes: Int, outcome: ReceiveOutcome, complication: Bool = false)
        case didCommitReceivedTransfers(first: Int64, last: Int64, count: Int)
        case didRollBackReceivedTransfers(error: String)
        case didFinishUserInfoTransfer(seq: Int64, replayed: Bool, error: WCError?, complication: Bool = false)
        case didReceiveApplicationContext(keys: [String], bytes: Int, payload: UserInfo?)
        /// `replyHandler`: whether the sender waits for a reply (Apple's two `didReceiveMessage` methods).
        case didReceiveMessage(keys: [String], bytes: Int, payload: UserInfo?, replyHandler: Bool, repliedAtOnce: Bool)
        /// A file arrived: its transfer id, name, size, and what the app did.
        case didReceiveFile(seq: Int64, name: String, bytes: Int64, outcome: ReceiveOutcome)
        /// A file transfer this side started finished (delivered, or failed with `error`).
        case didFinishFileTransfer(seq: Int64, replayed: Bool, error: WCError?)
        /// A data message: its size, never its bytes.
        case didReceiveMessageData(bytes: Int, replyHandler: Bool, repliedAtOnce: Bool)
        case reachabilityDidChange(reachable: Bool)
        case watchStateDidChange(paired: Bool, watchAppInstalled: Bool)
        /// Not a delegate call: a message the app logged with `os.Logger`, in the order it was written
        /// among the calls (its text cut at `DelegateTrace.payloadLimit` bytes).
        case appLog(type: String, subsystem: String, category: String, message: String)
        /// A call the app made to its system beside the session (WatchKit, ClockKit, WidgetKit): `name`
        /// (`complicationReload`, `backgroundTaskHanded`, `backgroundTaskCompleted`, `haptic`) and its kind.
        case system(name: String, kind: String)
        /// Not a delegate call: the realistic system deferred something this side sends (`SystemTiming`):
        /// its lane (`userInfo`, `file`, `applicationContext`), its number (a context's version), how
        /// long it waits and why.
        case systemDeferred(lane: String, seq: Int64, delayMs: Int64, reason: String)
    }

    /// 1, 2, 3… in the order the calls were made, since the daemon started.
    package let index: Int64
    /// Wall-clock seconds since 1970.
    package let at: Double
    package let call: Call

    /// The delegate method's name (`didReceiveUserInfo`, `sessionReachabilityDidChange`, …).
    package var name: String {
        switch call {
        case .activationDidComplete: "activationDidComplete"
        case .didBecomeInactive: "sessionDidBecomeInactive"
        case .didDeactivate: "sessionDidDeactivate"
        case .didReceiveUserInfo: "didReceiveUserInfo"
        case .didCommitReceivedTransfers: "didCommitReceivedTransfers"
        case .didRollBackReceivedTransfers: "didRollBackReceivedTransfers"
        case .didFinishUserInfoTransfer: "didFinishUserInfoTransfer"
        case .didReceiveApplicationContext: "didReceiveApplicationContext"
        case .didReceiveMessage: "didReceiveMessage"
        case .didReceiveMessageData: "didReceiveMessageData"
        case .didReceiveFile: "didReceiveFile"
        case .didFinishFileTransfer: "didFinishFileTransfer"
        case .reachabilityDidChange: "sessionReachabilityDidChange"
        case .watchStateDidChange: "sessionWatchStateDidChange"
        case .appLog: "os.log"
        case let .system(name, _): name
        case .systemDeferred: "system.deferred"
        }
    }
}

/// The session's delegate calls, recorded as they happen: the most recent `capacity` in a ring (what
/// `runway … events` shows), and each handed to `onEvent` (the followers, `events --follow`).
package final class DelegateTrace {
    package static let defaultCapacity = 1024
    /// A context or message that encodes to more than this is traced by its keys and size only.
    package static let payloadLimit = 1024

    package let capacity: Int
    private var ring: [DelegateEvent] = []
    private var head = 0
    private var nextIndex: Int64 = 1
    /// Called with each new event, on the event loop's thread.
    package var onEvent: ((DelegateEvent) -> Void)?

    package init(capacity: Int = DelegateTrace.defaultCapacity) {
        // The ring grows as events come (not reserved: 74 kB an idle daemon would hold for nothing).
        self.capacity = max(1, capacity)
    }

    package func record(_ call: DelegateEvent.Call) {
        let event = DelegateEvent(index: nextIndex, at: wallClockSeconds(), call: call)
        nextIndex += 1
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[head] = event
            head = (head + 1) % capacity
        }
        onEvent?(event)
    }

    /// The most recent `limit` events, oldest first.
    package func recent(_ limit: Int) -> [DelegateEvent] {
        let ordered = ring.count < capacity ? ring : Array(ring[head...] + ring[..<head])
        return Array(ordered.suffix(max(0, limit)))
    }

    /// How many calls have been recorded since the start (some may have left the ring).
    package var total: Int64 { nextIndex - 1 }
}
