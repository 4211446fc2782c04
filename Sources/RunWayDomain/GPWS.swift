/// RunWay's GPWS: the run's "ground proximity warning system", which tells the runner that they are
/// falling behind their target (`SINK RATE`) or running too hot (`OVERSPEED`). A pure state machine: one
/// decision per sample, as RunWay's `RunningCenter` makes one per location update. Both devices use it
/// (the watch for its own runs, the phone for the runs it leads).
///
/// RunWay 1.3's bug (`seeds/000`, #20–#22): while the runner stood still the pace was frozen
/// (`lastValidPace`) but the heart rate was read live, so resting in a heart-rate Mission Flight let the
/// heart rate fall under the zone and raised a false `SINK RATE`. The fix skips the decision on a
/// stationary sample and keeps the previous status, in both modes. `Behaviour.legacy` keeps the bug.
public enum GPWSStatus: String, Sendable, CaseIterable, Codable {
    case clear = "CLEAR"
    case sinkRate = "SINK RATE"
    case overspeed = "OVERSPEED"

    /// A warning (an alert is raised on each transition into one).
    public var isWarning: Bool { self != .clear }
}

public enum GPWSBehaviour: String, Sendable, CaseIterable, Codable {
    /// RunWay 1.3 after the fix: no decision while stationary.
    case fixed
    /// Before the fix: a stationary sample decides on the frozen pace, or on the live heart rate.
    case legacy
}

/// What a run is flown to: a target pace with a tolerance, or a heart-rate zone.
public struct GPWSTarget: Equatable, Sendable {
    public var mode: FlightMode
    /// Seconds per kilometre (pace mode).
    public var paceSecondsPerKm: Double
    /// Seconds per kilometre either side of the target that still count as on target.
    public var toleranceSecondsPerKm: Double
    /// Beats per minute (heart-rate mode): the zone `[low, high]`.
    public var low: Double
    public var high: Double

    /// Defaults (a choice, APP_SPEC section 4): pace 6:00 ± 15 s/km, zone 140–160.
    public static let defaultPace: Double = 360
    public static let defaultTolerance: Double = 15
    public static let defaultZone: ClosedRange<Double> = 140...160
    /// Valid targets: a pace of 2:00–20:00 per km, a zone with 40 ≤ low < high ≤ 220.
    public static let paceRange: ClosedRange<Double> = 120...1200
    public static let zoneRange: ClosedRange<Double> = 40...220

    public init(
        mode: FlightMode, paceSecondsPerKm: Double = defaultPace, toleranceSecondsPerKm: Double = defaultTolerance,
        low: Double = defaultZone.lowerBound, high: Double = defaultZone.upperBound
    ) {
        self.mode = mode
        self.paceSecondsPerKm = paceSecondsPerKm
        self.toleranceSecondsPerKm = toleranceSecondsPerKm
        self.low = low
        self.high = high
    }

    /// `6:00` or `140-160`: what the alerts and the status show.
    public var text: String {
        switch mode {
        case .pace: Self.formatPace(paceSecondsPerKm)
        case .heartRate: "\(Int(low))-\(Int(high))"
        }
    }

    /// `M:SS` → seconds per km, within `paceRange`; nil otherwise (digits only: no sign, and minutes
    /// checked before they are multiplied, so no text overflows).
    public static func parsePace(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let minutes = Int(parts[0]), let seconds = Int(parts[1]), minutes <= 1000, (0..<60).contains(seconds)
        else { return nil }
        let total = Double(minutes * 60 + seconds)
        return paceRange.contains(total) ? total : nil
    }

    /// `LOW-HIGH` with 40 ≤ LOW < HIGH ≤ 220; nil otherwise.
    public static func parseZone(_ text: String) -> (low: Double, high: Double)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]),
            zoneRange.contains(Double(low)), zoneRange.contains(Double(high)), low < high
        else { return nil }
        return (Double(low), Double(high))
    }

    /// Total: NaN is `0:00`, and beyond ±10^9 s the clamped value.
    public static func formatPace(_ seconds: Double) -> String {
        let whole = Int(seconds.isNaN ? 0 : min(max(seconds.rounded(), -1e9), 1e9))
        let s = whole % 60
        return "\(whole / 60):\(s < 10 ? "0" : "")\(s)"
    }
}

/// One sample's decision, as the `--json` trace shows it.
public struct GPWSDecision: Equatable, Sendable {
    public var time: Double
    public var stationary: Bool
    /// Whether a decision was made (false: the status was kept as it was).
    public var decided: Bool
    public var status: GPWSStatus
    /// Set when this sample moved the status into a warning and an alert was raised.
    public var alert: GPWSStatus?
    /// The value the decision read (pace in s/km or heart rate in bpm), when one was made.
    public var value: Double?
}

/// The engine: the current status, and what the decision rules need to remember.
public struct GPWS: Sendable {
    /// At most this many alerts per run (a choice): a runner oscillating at the zone's edge for hours
    /// must not grow the flight past the userInfo limit.
    public static let maximumAlerts = 200

    public let target: GPWSTarget
    public let behaviour: GPWSBehaviour
    public private(set) var status: GPWSStatus = .clear
    /// The last moving pace (RunWay's `lastValidPace`).
    public private(set) var lastValidPace: Double?
    public private(set) var alertCount = 0

    public init(target: GPWSTarget, behaviour: GPWSBehaviour) {
        self.target = target
        self.behaviour = behaviour
    }

    /// Decides on one sample. Stationary means pace 0.
    public mutating func evaluate(_ sample: FlightSample) -> GPWSDecision {
        let pace = Double(sample.pace), heartRate = Double(sample.heartRate)
        let stationary = pace == 0
        if !stationary { lastValidPace = pace }
        var decision = GPWSDecision(time: Double(sample.time), stationary: stationary, decided: false, status: status)
        // The 1.3 fix: standing still decides nothing, in either mode.
        if stationary && behaviour == .fixed { return decision }
        let reading: Double?
        switch target.mode {
        // Legacy pace mode reads the frozen pace on a stop: in effect, nothing changes.
        case .pace: reading = lastValidPace
        // Legacy heart-rate mode reads the live heart rate even on a stop: the bug. 0 is no reading.
        case .heartRate: reading = heartRate > 0 ? heartRate : nil
        }
        guard let value = reading else { return decision }
        let next: GPWSStatus
        switch target.mode {
        case .pace:
            next =
                value > target.paceSecondsPerKm + target.toleranceSecondsPerKm
                ? .sinkRate
                : value < target.paceSecondsPerKm - target.toleranceSecondsPerKm ? .overspeed : .clear
        case .heartRate:
            next = value < target.low ? .sinkRate : value > target.high ? .overspeed : .clear
        }
        decision.decided = true
        decision.value = value
        if next.isWarning && next != status && alertCount < Self.maximumAlerts {
            decision.alert = next
            alertCount += 1
        }
        status = next
        decision.status = next
        return decision
    }
}
