import PropertyLists

// MARK: - A mirrored workout session's traffic: ordered, acknowledged, resent after a link cut

/// One direction of a mirrored workout session's traffic (HealthKit's `startMirroringToCompanionDevice`,
/// `sendToRemoteWorkoutSession`, the primary's state changes): items numbered from 1, kept until the
/// counterpart acknowledges them, sent again — all of them, in order — each time the link returns. Kept
/// in memory by the sending app's process: workout traffic is the system's, never the durable outbox's.
/// Pure: the device's HealthKit carries out what it says on the `workout` frame (0x18).
package struct MirrorSender: Sendable {
    /// The highest item the counterpart acknowledged.
    package private(set) var acknowledged: Int64 = 0
    /// The items not yet acknowledged, oldest first, each with its number.
    package private(set) var pending: [(seq: Int64, item: UserInfo)] = []
    private var next: Int64 = 1

    package init() {}

    /// A sender numbering after `acknowledged`: what the counterpart took from an earlier process of
    /// this side (an app that restarted while its counterpart kept the session).
    package init(after acknowledged: Int64) {
        self.acknowledged = acknowledged
        next = acknowledged + 1
    }

    /// The number of the last item appended (0 before the first).
    package var last: Int64 { next - 1 }

    /// Appends `item`; returns its number.
    package mutating func append(_ item: UserInfo) -> Int64 {
        let seq = next
        next += 1
        pending.append((seq, item))
        return seq
    }

    /// The counterpart has everything up to `upTo`: the numbers of the items that leaves behind, nothing
    /// for an old acknowledgement, and a violation for one past the last item sent — completing an item
    /// the counterpart never received would lose it (issue 51: an acknowledgement names only what was
    /// sent). `trusting`: the rule before that (`--unsafe-trust-counterpart`), which took it up to `last`.
    package mutating func acknowledge(upTo: Int64, trusting: Bool = false) -> Acknowledged<[Int64]> {
        if upTo > last, !trusting {
            return .violation("acknowledgement up to \(upTo), but only up to \(last) was sent")
        }
        guard min(upTo, last) > acknowledged else { return .nothingNew }
        acknowledged = min(upTo, last)
        let done = pending.prefix { $0.seq <= acknowledged }.map(\.seq)
        pending.removeFirst(done.count)
        return .moved(done)
    }
}

/// The other direction, as the receiving app's HealthKit holds it: each item taken once, in order.
package struct MirrorReceiver: Sendable {
    /// What to do with an arriving item.
    package enum Verdict: Equatable, Sendable {
        /// The next one: deliver it, then acknowledge.
        case deliver
        /// Already delivered (sent again after a link cut): acknowledge again, deliver nothing.
        case duplicate
        /// Something before it is missing: neither deliver nor acknowledge; the sender sends it all again.
        case gap
    }

    /// The highest item delivered.
    package private(set) var delivered: Int64
    /// State changes up to this item are already in the session's state (the sender's start says where
    /// its state stands): delivered, but not replayed as changes.
    package let statesThrough: Int64

    /// A receiver starting after `delivered` (what the sender says the counterpart acknowledged).
    package init(delivered: Int64 = 0, statesThrough: Int64 = 0) {
        self.delivered = delivered
        self.statesThrough = statesThrough
    }

    package mutating func receive(_ seq: Int64) -> Verdict {
        if seq <= delivered { return .duplicate }
        guard seq == delivered + 1 else { return .gap }
        delivered = seq
        return .deliver
    }
}

/// The `workout` frame's dictionaries for mirroring: one declaration of their keys.
package enum MirrorFrame {
    /// The primary announces (or, after a link cut, announces again) its session: `session`,
    /// `acknowledged`, `through`, `received` (the last of the mirror's items it took: a mirror made again
    /// numbers after it), `activityType`, `locationType`, `state`, `startDate`.
    package static let start = "mirrorStart"
    /// One numbered item: `session`, `seq`, `op` (`state`, `data`, `control`, `stop`) and its values.
    package static let item = "mirrorItem"
    /// `session`, `upTo`.
    package static let ack = "mirrorAck"
    /// The watch has no such primary (its app ended since): `session`.
    package static let gone = "mirrorGone"

    package static let kinds: Set<String> = [start, item, ack, gone]

    package static func acknowledgement(session: String, upTo: Int64) -> UserInfo {
        ["kind": .string(ack), "session": .string(session), "upTo": .integer(upTo)]
    }

    /// `item` as sent: numbered, for `session`.
    package static func numbered(_ item: UserInfo, session: String, seq: Int64) -> UserInfo {
        var frame = item
        frame["kind"] = .string(Self.item)
        frame["session"] = .string(session)
        frame["seq"] = .integer(seq)
        return frame
    }
}
