import Posix

/// The system's own timing (issue 50, item 3): `immediate` — what arrives is sent at once and a refresh
/// fires on its date, the simulator's default — or `realistic`, a seeded model of what Apple's systems
/// document and the field reports:
///
/// - Background transfers (`transferUserInfo`) are deferred: WCSession's overview, "When only one session
///   is active, the active session may still send updates and transfer files, but those transfers happen
///   opportunistically in the background"; field reports speak of seconds to minutes. Each transfer waits
///   a delay drawn from `transferDeferralMilliseconds` (1–10 s; 4–40 s on a low-power or busy device),
///   in order: a transfer never overtakes the one before it.
/// - A background refresh fires "shortly after the scheduled time, but may delay the background task due
///   to the system's current state or if your app exceeds its budget for background tasks"
///   (`scheduleBackgroundRefresh(withPreferredDate:userInfo:scheduledCompletion:)`): a delay drawn from
///   `refreshDelaySeconds` (0–60 s; 0–300 s on a low-power device), and at most `refreshesPerHour` (four,
///   watchOS's figure for an app with a complication on the active face) in any hour of device time
///   (`RefreshBudget`).
///
/// Every delay is a function of the seed and of what is delayed (the lane and sequence number of a
/// transfer; the count of a refresh), never of the host's timing: the same seed gives the same schedule.
/// Chosen per pair through the environment (`RUNWAY_SYSTEM`, set by `runway up --system`, `DevicePair`'s
/// `system:`, a scenario's `"system"`), which every daemon and app of the pair inherits.
package struct SystemTiming: Equatable, Sendable {
    package var realistic: Bool
    package var seed: UInt64
    package var lowPower: Bool

    package static let immediate = SystemTiming(realistic: false, seed: 0, lowPower: false)
    package static func realistic(seed: UInt64, lowPower: Bool = false) -> SystemTiming {
        SystemTiming(realistic: true, seed: seed, lowPower: lowPower)
    }

    /// The variable that carries it to every process of the pair.
    package static let variable = "RUNWAY_SYSTEM"

    /// `immediate`, or `realistic:SEED` with `:low-power` after it (SEED a whole number, 0 to 2^64−1).
    package init(parsing text: String) throws(SystemTimingError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "immediate" where parts.count == 1:
            self = .immediate
        case "realistic" where parts.count == 2 || (parts.count == 3 && parts[2] == "low-power"):
            guard let seed = UInt64(parts[1]) else { throw SystemTimingError(text) }
            self = .realistic(seed: seed, lowPower: parts.count == 3)
        default:
            throw SystemTimingError(text)
        }
    }

    private init(realistic: Bool, seed: UInt64, lowPower: Bool) {
        self.realistic = realistic
        self.seed = seed
        self.lowPower = lowPower
    }

    /// The form `init(parsing:)` reads.
    package var text: String { realistic ? "realistic:\(seed)" + (lowPower ? ":low-power" : "") : "immediate" }

    /// This process's, from `RUNWAY_SYSTEM` (unset: immediate; a value it cannot read: immediate, and
    /// `problem` says why for the log).
    package static var current: (timing: SystemTiming, problem: String?) {
        guard let raw = getenv(variable) else { return (.immediate, nil) }
        let text = String(cString: raw)
        do {
            return (try SystemTiming(parsing: text), nil)
        } catch {
            return (.immediate, error.description)
        }
    }

    /// Why a deferral happened, for the trace.
    package var reason: String { "realistic system, seed \(seed)" + (lowPower ? ", low power" : "") }

    // MARK: - The documented ranges

    /// A background `transferUserInfo` or `transferFile`: "transfers happen opportunistically in the
    /// background"; a file is "transferred to the counterpart asynchronously on a background thread".
    package var transferDeferralRange: ClosedRange<UInt64> { lowPower ? 4_000...40_000 : 1_000...10_000 }
    /// An application context: "The system sends context data when the opportunity arises" — the same
    /// range as a transfer; the value sent is the latest when the wait ends (`updateApplicationContext`).
    package var contextDeferralRange: ClosedRange<UInt64> { transferDeferralRange }
    package var refreshDelayRange: ClosedRange<UInt64> { lowPower ? 0...300 : 0...60 }
    package static let refreshesPerHour = 4
    /// The time a watch app's background task has before it expires (ms): `setTaskCompleted()`, "The
    /// system provides your extension with a limited amount of time to finish the task (on the order of
    /// seconds)"; a low-power device gives less.
    package var taskRuntimeRange: ClosedRange<UInt64> { lowPower ? 2_000...8_000 : 4_000...15_000 }

    /// How long the system holds transfer `seq` of `lane` before it sends it (ms); 0 when immediate.
    /// `lane` is the transfer's lane (`userInfo`, `file`) or `applicationContext` (then `seq` is the
    /// context's version).
    package func transferDeferralMilliseconds(lane: String, seq: Int64) -> UInt64 {
        guard realistic else { return 0 }
        let range = lane == Self.contextLane ? contextDeferralRange : transferDeferralRange
        return draw(stream: Self.stream(lane), index: UInt64(bitPattern: seq), in: range)
    }

    /// The name an application context's deferrals draw under (and are counted by).
    package static let contextLane = "applicationContext"

    /// The runtime the `index`-th background launch of the watch app gets before its tasks expire (ms),
    /// nil when immediate (the configured budget applies alone).
    package func taskRuntimeMilliseconds(index: Int) -> UInt64? {
        guard realistic else { return nil }
        return draw(stream: Self.stream("task"), index: UInt64(max(0, index)), in: taskRuntimeRange)
    }

    /// How long after its date the `index`-th refresh the app scheduled fires, budget aside (s); 0 when
    /// immediate.
    package func refreshDelaySeconds(index: Int) -> UInt64 {
        guard realistic else { return 0 }
        return draw(stream: Self.stream("refresh"), index: UInt64(max(0, index)), in: refreshDelayRange)
    }

    /// A value in `range` from the seed, the stream and the index (SplitMix64's finaliser).
    private func draw(stream: UInt64, index: UInt64, in range: ClosedRange<UInt64>) -> UInt64 {
        var z = seed &+ stream &* 0x9E37_79B9_7F4A_7C15 &+ index &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return range.lowerBound + z % (range.upperBound - range.lowerBound + 1)
    }

    /// A stable number per name (FNV-1a), so each kind of delay draws its own sequence.
    private static func stream(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

package struct SystemTimingError: Error, CustomStringConvertible {
    let text: String
    init(_ text: String) { self.text = text }
    package var description: String {
        "the system must be immediate or realistic:SEED (a whole number from 0 to 18446744073709551615), optionally followed by :low-power, not \(OneLine.quote(text))"
    }
}

/// watchOS's budget for background refreshes: at most `perHour` in any hour (device time, seconds).
package enum RefreshBudget {
    /// The earliest time at or after `wanted` at which one more refresh keeps every hour-long window at
    /// `perHour` refreshes or fewer, given when the earlier ones fired.
    package static func earliest(_ wanted: Double, after fired: [Double], perHour: Int = SystemTiming.refreshesPerHour) -> Double {
        guard perHour > 0, wanted.isFinite else { return wanted }
        var time = wanted
        while true {
            // `x + 3600 > time` (not `x > time - 3600`): the time computed below as `x + 3600` then leaves
            // `x` out exactly, whatever the rounding, so the loop always moves on.
            let inWindow = fired.filter { $0 + 3600 > time && $0 <= time }.sorted()
            if inWindow.count < perHour { return time }
            time = max(inWindow[inWindow.count - perHour] + 3600, time.nextUp)
        }
    }
}
