/// The sender's side of the link as a pure state machine: which queued transfers may go on the wire now,
/// what an acknowledgement releases, what `fail-next` fails, and the rate limit's tokens. It owns no
/// I/O: `Session.pump()` reads the outbox, asks the window, encodes and sends what it allows; the acks
/// the link brings are fed back (`acknowledge`). Time comes in as an argument, so every rule here is a
/// unit test (`SendWindowTests`) with no loop, no socket and no database.
///
/// Invariants: `lastAckedSeq <= lastSentSeq`; every sequence number in flight is in
/// `lastAckedSeq+1 ... lastSentSeq`, ascending; `inFlightBytes` is the sum of their payloads.
struct SendWindow {
    /// The largest transfer sequence number sent on the current link.
    private(set) var lastSentSeq: Int64 = 0
    /// Everything up to here is durable at the counterpart.
    private(set) var lastAckedSeq: Int64 = 0
    private var inFlight = RingBuffer<(seq: Int64, bytes: Int)>()
    private(set) var inFlightBytes = 0
    /// Fault injection (`runway link fail-next`): the next `failNextCount` transfers the pump would send
    /// finish with `failNextCode` instead. In memory only.
    private(set) var failNextCount = 0
    private(set) var failNextCode: WCError.Code = .transferTimedOut
    private var rateTokens = 0.0
    private var rateRefilledAt: UInt64 = 0

    let maximumTransfers: Int
    let maximumBytes: Int

    init(maximumTransfers: Int, maximumBytes: Int) {
        self.maximumTransfers = maximumTransfers
        self.maximumBytes = maximumBytes
    }

    var transfersInFlight: Int { inFlight.count }

    /// How many more transfers may be sent now (0 when the window is full by count or by bytes).
    var room: Int {
        guard inFlight.count < maximumTransfers, inFlightBytes < maximumBytes else { return 0 }
        return maximumTransfers - inFlight.count
    }

    /// Sent on the current link and not yet acknowledged (such a transfer cannot be cancelled).
    func isOnTheWire(_ seq: Int64) -> Bool { seq <= lastSentSeq && seq > lastAckedSeq }

    /// What happens to one queued transfer the pump took.
    enum Disposition: Equatable {
        /// Encode it and put it on the wire.
        case send
        /// Finish it with this error instead (`fail-next`): it leaves the outbox, the app hears of it.
        case fail(WCError.Code)
    }

    /// Takes transfer `seq` (`bytes` of payload), in order, and says what to do with it.
    mutating func take(seq: Int64, bytes: Int) -> Disposition {
        if failNextCount > 0 {
            failNextCount -= 1
            return .fail(failNextCode)
        }
        inFlight.append((seq, bytes))
        inFlightBytes += bytes
        lastSentSeq = seq
        return .send
    }

    /// An acknowledgement up to `seq` arrived: the new watermark if it moves, nothing if it says nothing
    /// new (an old one), and a violation if it names a transfer not sent on this link — deleting one not
    /// sent would lose it (issue 51: an acknowledgement names only what was sent). `trusting`: the rule
    /// before that (a test switch, `--unsafe-trust-counterpart`), which took it up to the last sent.
    mutating func acknowledge(upTo seq: Int64, trusting: Bool = false) -> Acknowledged<Int64> {
        if seq > lastSentSeq, !trusting {
            return .violation("acknowledgement up to \(seq), but only up to \(lastSentSeq) was sent on this link")
        }
        let upTo = min(seq, lastSentSeq)
        guard upTo > lastAckedSeq else { return .nothingNew }
        lastAckedSeq = upTo
        while let first = inFlight.first, first.seq <= upTo {
            inFlightBytes -= first.bytes
            inFlight.removeFirst()
        }
        return .moved(upTo)
    }

    /// The link went down: nothing is in flight any more (what was is sent again on the next link).
    mutating func linkClosed() {
        inFlight.removeAll()
        inFlightBytes = 0
    }

    /// A new link: the counterpart has everything up to `acknowledged` (its resume point, or the
    /// outbox's own watermark if that is further); sending resumes after it. `peerCursor` is the
    /// counterpart's own resume point: its receiver takes only the number after it next.
    mutating func resume(acknowledged: Int64, peerCursor: Int64? = nil) {
        linkClosed()
        lastAckedSeq = acknowledged
        lastSentSeq = acknowledged
        peerExpects = (peerCursor ?? acknowledged) + 1
    }

    /// The sequence number the counterpart's receiver takes next: it accepts only the one after its
    /// cursor (a frame further ahead is a protocol violation), so every number is sent — a transfer, or
    /// a skip for one that will never come.
    private(set) var peerExpects: Int64 = 1

    /// The numbers to send as skips before sending `seq` (those cancelled or failed before they were
    /// sent, or acknowledged before the counterpart's cursor last moved back), and `seq` taken as sent.
    mutating func skips(before seq: Int64) -> ClosedRange<Int64>? {
        defer { peerExpects = max(peerExpects, seq + 1) }
        return seq > peerExpects ? peerExpects...(seq - 1) : nil
    }

    /// Activation: the acknowledgement watermark is read again from the outbox at the next link.
    mutating func forgetAcknowledgements() { lastAckedSeq = 0 }

    mutating func failNext(_ count: Int, code: WCError.Code) {
        failNextCount = count
        failNextCode = code
    }

    /// A token bucket for `rate` transfers a second (bursts of at most a tenth of a second): how many
    /// of `wanted` may go at `now` (nanoseconds). Zero means: come back in `1000 / rate` ms.
    mutating func takeTokens(upTo wanted: Int, rate: Int, now: UInt64) -> Int {
        guard rate > 0 else { return wanted }
        if rateRefilledAt == 0 { rateRefilledAt = now; rateTokens = 1 }
        let elapsed = now >= rateRefilledAt ? now - rateRefilledAt : 0
        rateTokens = min(max(1, Double(rate) / 10), rateTokens + Double(elapsed) * Double(rate) / 1e9)
        rateRefilledAt = now
        let granted = min(wanted, Int(rateTokens))
        rateTokens -= Double(granted)
        return granted
    }
}

/// What an acknowledgement does, checked against what was sent (issue 51's rule for every lane: an
/// acknowledgement names only what was sent and, for files, completed).
package enum Acknowledged<Value: Equatable>: Equatable {
    /// At or below what was acknowledged already (a resend's answer): nothing to do.
    case nothingNew
    /// The acknowledgement moves to this.
    case moved(Value)
    /// It names what was never sent (or not completed): the link closes with this reason.
    case violation(String)
}
