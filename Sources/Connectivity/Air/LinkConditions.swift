/// Where the watch is from the phone (`runway link set --range`): beside it over Bluetooth, out of
/// Bluetooth range but reached through the Wi-Fi relay, or out of range altogether.
package enum LinkRange: String, CaseIterable, Sendable, Codable {
    case near, wifi, out
}

/// The air between the devices (`runway link set`, docs/link-conditions.md): what each frame of the link
/// meets on its way, in both directions. Applied by the watch on its connection (`LinkAir`), so every
/// kind of traffic — userInfo, messages, contexts, complications, files, the handshake — sees it.
package struct LinkConditions: Equatable, Sendable {
    /// Added to every frame's trip, each way.
    package var latencyMilliseconds = 0
    /// Each frame's latency varies by up to this much either way (uniformly; never below zero, never
    /// reordering: the link is a stream).
    package var jitterMilliseconds = 0
    /// The chance that a frame is lost. A lost frame cuts the connection where it would have arrived; the
    /// watch reconnects and both sides resume from their cursors, as after any cut.
    package var loss = 0.0
    /// The link's capacity each way, in kilobits a second; 0 is unlimited.
    package var bandwidthKbps = 0
    package var range = LinkRange.near

    package init(latencyMilliseconds: Int = 0, jitterMilliseconds: Int = 0, loss: Double = 0, bandwidthKbps: Int = 0, range: LinkRange = .near) {
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.loss = loss
        self.bandwidthKbps = bandwidthKbps
        self.range = range
    }

    package static let latencyRange = 0...60_000
    package static let jitterRange = 0...60_000
    package static let lossRange = 0.0...1.0
    package static let bandwidthRange = 0...10_000_000

    /// The Wi-Fi relay's cost (`--range wifi`), added to what is set: a trip through the relay is slower
    /// than Bluetooth and its capacity lower.
    package static let wifiLatencyMilliseconds = 60
    package static let wifiJitterMilliseconds = 20
    package static let wifiBandwidthKbps = 1_000

    /// What a frame meets: the conditions with the range's cost folded in.
    package var shape: LinkShape {
        guard range == .wifi else {
            return LinkShape(latencyMilliseconds: latencyMilliseconds, jitterMilliseconds: jitterMilliseconds, loss: loss, bandwidthKbps: bandwidthKbps)
        }
        return LinkShape(
            latencyMilliseconds: latencyMilliseconds + Self.wifiLatencyMilliseconds,
            jitterMilliseconds: jitterMilliseconds + Self.wifiJitterMilliseconds, loss: loss,
            bandwidthKbps: bandwidthKbps == 0 ? Self.wifiBandwidthKbps : min(bandwidthKbps, Self.wifiBandwidthKbps))
    }

    /// The first value out of its range, as one line; nil if every value is in range.
    package var problem: String? {
        if !Self.latencyRange.contains(latencyMilliseconds) {
            return "latency must be a whole number of milliseconds from 0 to 60000, not \(latencyMilliseconds)"
        }
        if !Self.jitterRange.contains(jitterMilliseconds) { return "jitter must be a whole number of milliseconds from 0 to 60000, not \(jitterMilliseconds)" }
        if !(loss.isFinite && Self.lossRange.contains(loss)) { return "loss must be a number from 0 to 1, not \(loss)" }
        if !Self.bandwidthRange.contains(bandwidthKbps) {
            return "bandwidth must be a whole number of kbit/s from 0 (unlimited) to 10000000, not \(bandwidthKbps)"
        }
        return nil
    }
}

/// What each frame meets, the range folded in (`LinkConditions.shape`).
package struct LinkShape: Equatable, Sendable {
    package var latencyMilliseconds: Int
    package var jitterMilliseconds: Int
    package var loss: Double
    package var bandwidthKbps: Int

    /// Nothing in the way: frames go straight to the socket.
    package var isClear: Bool { latencyMilliseconds == 0 && jitterMilliseconds == 0 && loss == 0 && bandwidthKbps == 0 }
}

/// A change to the conditions (`runway link set`, one step of a schedule): what it names changes, the
/// rest stays; `reset` starts from clear air first.
package struct LinkConditionsChange: Equatable, Sendable {
    package var latencyMilliseconds: Int?
    package var jitterMilliseconds: Int?
    package var loss: Double?
    package var bandwidthKbps: Int?
    package var range: LinkRange?
    package var reset = false

    package init(
        latencyMilliseconds: Int? = nil, jitterMilliseconds: Int? = nil, loss: Double? = nil, bandwidthKbps: Int? = nil, range: LinkRange? = nil,
        reset: Bool = false
    ) {
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.loss = loss
        self.bandwidthKbps = bandwidthKbps
        self.range = range
        self.reset = reset
    }

    package var isEmpty: Bool { self == LinkConditionsChange() }

    package func applied(to conditions: LinkConditions) -> LinkConditions {
        var result = reset ? LinkConditions() : conditions
        if let latencyMilliseconds { result.latencyMilliseconds = latencyMilliseconds }
        if let jitterMilliseconds { result.jitterMilliseconds = jitterMilliseconds }
        if let loss { result.loss = loss }
        if let bandwidthKbps { result.bandwidthKbps = bandwidthKbps }
        if let range { result.range = range }
        return result
    }

    /// The first value out of its range (applied to clear air, every named value is checked).
    package var problem: String? { applied(to: LinkConditions()).problem }
}

/// One direction of the air, as a pure function of the frames that enter it: each frame waits for the
/// frames ahead of it to be carried (the bandwidth), then travels (the latency, give or take the jitter),
/// and arrives no earlier than the frame before it (a stream never reorders); or it is lost on the way.
package struct LinkPipe: Equatable, Sendable {
    package enum Verdict: Equatable, Sendable {
        /// Arrives at this time (the loop's clock, nanoseconds).
        case arrive(at: UInt64)
        /// Lost: the connection is cut when it would have arrived.
        case lose(at: UInt64)
    }

    /// When the air has finished carrying what entered it so far.
    private var freeAt: UInt64 = 0
    /// When the last frame arrives.
    package private(set) var lastArrival: UInt64 = 0

    package init() {}

    package mutating func admit(bytes: Int, now: UInt64, shape: LinkShape, random: inout some RandomNumberGenerator) -> Verdict {
        let start = max(now, freeAt)
        // kbit/s = bits per millisecond: bytes × 8 / kbps ms = bytes × 8,000,000 / kbps ns.
        let carrying = shape.bandwidthKbps > 0 ? UInt64(bytes) * 8_000_000 / UInt64(shape.bandwidthKbps) : 0
        freeAt = start + carrying
        var delay = shape.latencyMilliseconds
        if shape.jitterMilliseconds > 0 { delay += Int.random(in: -shape.jitterMilliseconds...shape.jitterMilliseconds, using: &random) }
        let arrival = max(freeAt + UInt64(max(0, delay)) * 1_000_000, lastArrival)
        lastArrival = arrival
        let lost = shape.loss > 0 && (shape.loss >= 1 || Double.random(in: 0..<1, using: &random) < shape.loss)
        return lost ? .lose(at: arrival) : .arrive(at: arrival)
    }
}
