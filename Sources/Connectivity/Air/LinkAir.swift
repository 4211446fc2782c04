import Posix

/// The watch's air (`runway link set`, docs/link-conditions.md): the conditions every connection of its
/// link travels through, the seeded draws of jitter and loss, and what the air has done so far.
///
/// The watch applies the conditions on its own connection, both ways — to what it writes before the
/// socket takes it, to what it reads before its session sees it — so the phone's process needs no part
/// in it and every kind of traffic meets the same air. Owned by the connector; each connection keeps its
/// own pipes (`LinkPipe`), since a new connection starts with empty air.
package final class LinkAir {
    /// What is set; `range == .out` keeps the connector from connecting (a connector's are set through
    /// `UnixLinkConnector.setConditions`, which connects or cuts as the range says; watch-os sets its own).
    package var conditions = LinkConditions()
    /// The seed of the draws (`runway link set --seed`, `runway link schedule --seed`).
    package private(set) var seed: UInt64
    var random: SeededGenerator
    /// Frames lost on the way, each of which cut the connection.
    package internal(set) var framesLost = 0
    /// Frames that entered the air, both ways (those after a lost frame go with the connection it cut).
    package internal(set) var framesCarried = 0
    /// The most bytes one connection has held in the air at once, both ways: bounded by the session's
    /// high-water mark (out) and `maximumInboundAirBytes` (in), however slow the air.
    package internal(set) var mostBytesInAir = 0
    /// TEST ONLY (`watch-agent --unsafe-link-loss-skips-frames`): a lost frame of an established connection vanishes and the
    /// connection carries on — a link that loses without the cut that makes the peers resend. The proof
    /// that the loss test can fail: with it, flights are lost and the checker names them.
    package var lossSkipsFrames = false

    package init(seed: UInt64 = UInt64.random(in: 0...UInt64(UInt32.max))) {
        self.seed = seed
        random = SeededGenerator(seed: seed)
    }

    /// Starts the draws again from `seed`: the same conditions then draw the same jitter and loss, frame
    /// by frame.
    package func reseed(_ seed: UInt64) {
        self.seed = seed
        random = SeededGenerator(seed: seed)
    }

    var shape: LinkShape { conditions.shape }
}

/// What is in the air one way, in arrival order: runs of items that arrive together, or an item that is
/// lost (the connection is cut when it would have arrived). Its bytes count against the sender's
/// high-water mark (outbound) or the reader's room (inbound): memory stays bounded under any bandwidth.
struct AirQueue<Item> {
    private struct Entry {
        var arrival: UInt64
        var items: [Item]
        var lost: Bool
    }

    private var entries: [Entry] = []
    private var head = 0
    private(set) var heldBytes = 0
    private var entryBytes: [Int] = []

    var isEmpty: Bool { head == entries.count }
    var nextArrival: UInt64? { isEmpty ? nil : entries[head].arrival }

    mutating func append(_ item: Item, bytes: Int, _ verdict: LinkPipe.Verdict) {
        heldBytes += bytes
        switch verdict {
        case let .arrive(at):
            if head < entries.count, entries[entries.count - 1].arrival == at, !entries[entries.count - 1].lost {
                entries[entries.count - 1].items.append(item)
                entryBytes[entryBytes.count - 1] += bytes
                return
            }
            entries.append(Entry(arrival: at, items: [item], lost: false))
        case let .lose(at):
            entries.append(Entry(arrival: at, items: [item], lost: true))
        }
        entryBytes.append(bytes)
    }

    /// Everything that has arrived by `now`, in order, up to the first lost item; `cut` if that item's
    /// time has come (what follows it never arrives: the connection goes).
    mutating func takeDue(now: UInt64, skippingLost: Bool = false) -> (items: [Item], cut: Bool) {
        var items: [Item] = []
        while head < entries.count, entries[head].arrival <= now {
            heldBytes -= entryBytes[head]
            if entries[head].lost, skippingLost {
                head += 1
                continue
            }
            if entries[head].lost {
                removeAll()
                return (items, true)
            }
            items += entries[head].items
            head += 1
        }
        if head > 64, head * 2 > entries.count {
            entries.removeFirst(head)
            entryBytes.removeFirst(head)
            head = 0
        }
        return (items, false)
    }

    /// The air cleared (`runway link set --reset`): everything in it arrives at `now` at the latest, in
    /// order, and nothing more is lost — a reset applies to what is already on its way, not only to what
    /// is sent after it (what a 1 kbit/s link held would otherwise still take minutes).
    mutating func land(at now: UInt64) {
        for index in head..<entries.count {
            entries[index].arrival = min(entries[index].arrival, now)
            entries[index].lost = false
        }
    }

    mutating func removeAll() {
        entries = []
        entryBytes = []
        head = 0
        heldBytes = 0
    }
}
