/// Which of a run of identical log lines to write: the first at once, then at most one line an interval
/// that says how many it stands for. An unpaired watch retrying the link is refused every second, for as
/// long as nobody pairs it; its log (and the phone's) should say so once a minute, not 3,600 times an hour.
///
/// Pure: the caller passes the time (monotonic nanoseconds), so a test moves a number instead of sleeping.
/// A summary is written when the next occurrence comes after the interval — never on a timer — so a line
/// that stopped repeating leaves at most one interval's count unsaid.
package struct RepeatLimiter: Sendable {
    package enum Decision: Equatable, Sendable {
        /// Write the line as it is (the first of its kind, or the first after a quiet interval).
        case write
        /// Count it and write nothing.
        case suppress
        /// Write it with `repeated=N`: this line stands for N occurrences since the last one written
        /// (the N − 1 suppressed and this one).
        case summary(repeated: Int)
    }

    private struct Entry {
        var lastWritten: UInt64
        var suppressed: Int
        var lastSeen: UInt64
    }

    package let intervalNanoseconds: UInt64
    /// At most this many distinct lines are remembered (the least recently seen is forgotten): memory
    /// stays bounded however many different errors come by.
    package let capacity: Int
    private var entries: [String: Entry] = [:]

    package init(intervalMilliseconds: UInt64, capacity: Int = 64) {
        intervalNanoseconds = intervalMilliseconds * 1_000_000
        self.capacity = max(1, capacity)
    }

    package var rememberedCount: Int { entries.count }

    package mutating func note(_ key: String, now: UInt64) -> Decision {
        if var entry = entries[key] {
            entry.lastSeen = now
            guard now >= entry.lastWritten &+ intervalNanoseconds || now < entry.lastWritten else {
                entry.suppressed += 1
                entries[key] = entry
                return .suppress
            }
            let suppressed = entry.suppressed
            entry.lastWritten = now
            entry.suppressed = 0
            entries[key] = entry
            return suppressed == 0 ? .write : .summary(repeated: suppressed + 1)
        }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            entries[oldest] = nil
        }
        entries[key] = Entry(lastWritten: now, suppressed: 0, lastSeen: now)
        return .write
    }
}
