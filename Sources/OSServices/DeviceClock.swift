import JSONText
import Posix
import Storage

/// The device's own idea of the date: what the phone or watch shows its user and what its rules
/// (reminders, later alerts and the update check) count with. It is the system's time plus an offset,
/// or a fixed instant while frozen, and is kept in the device's store, so a relaunched daemon keeps
/// its time as a device does.
///
/// Only dates with a meaning to the user or to a rule read it: a run's start and end, `saved_at`,
/// notifications' fire and delivery. Log lines and monotonic timers (backoff, time-outs) stay real:
/// moving a device a month ahead must not time out its connections.
package final class DeviceClock {
    package enum Mode: String, Sendable {
        /// `now = system time + offsetSeconds` (the default, with 0).
        case offset
        /// `now` stays at one instant until the next clock command.
        case frozen
    }

    /// What a reader sees: the time, the mode, and how far from the system's time it is.
    package struct Reading: Equatable, Sendable {
        package var now: Double
        package var mode: Mode
        package var offsetSeconds: Double
    }

    package enum ClockError: Error, Equatable, Sendable, CustomStringConvertible {
        case outOfRange(Double)
        case badDuration(Double)

        package var description: String {
            switch self {
            case let .outOfRange(t): "\(Timestamp.iso8601(t)) is outside the device clock's range (2001-01-01 to 2100-01-01)"
            case let .badDuration(s): "a duration must be more than 0 and at most 3650d, not \(TimeText.formatDuration(s))"
            }
        }
    }

    /// 2001-01-01T00:00:00Z (Apple's reference date) to 2100-01-01T00:00:00Z.
    package static let range: ClosedRange<Double> = 978_307_200...4_102_444_800
    package static let maximumAdvance: Double = 3650 * 86_400

    package static let migrations: [Migration] = [
        Migration(
            "device.1",
            """
            -- The device's settings that are system state, not app data: one JSON value per key.
            CREATE TABLE device_settings (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) STRICT;
            """)
    ]

    package private(set) var mode: Mode = .offset
    /// In `offset` mode, added to the system time; in `frozen` mode, the instant itself is `frozenAt`.
    package private(set) var offsetSeconds: Double = 0
    package private(set) var frozenAt: Double = 0
    private let database: Database?
    private let systemTime: () -> Double
    /// Where the apps' processes read this clock (`HOME/device-clock`): rewritten at every change.
    package var page: DeviceClockPage? {
        didSet { publish() }
    }

    /// A clock persisted in `database` (`device_settings`, key `clock`); `systemTime` is injected so a
    /// test can hold real time still.
    package init(database: Database?, systemTime: @escaping () -> Double = wallClockSeconds) throws {
        self.database = database
        self.systemTime = systemTime
        guard let database else { return }
        let query = try database.statement(literal: "SELECT value FROM device_settings WHERE key = 'clock'")
        defer { query.reset() }
        guard try query.step(), let saved = try? JSONValue(parsing: Array(query.string(at: 0).utf8)) else { return }
        if saved["mode"]?.stringValue == Mode.frozen.rawValue, let at = saved["frozenAt"]?.doubleValue {
            mode = .frozen
            frozenAt = at
        } else {
            offsetSeconds = saved["offsetSeconds"]?.doubleValue ?? 0
        }
    }

    /// The device's time now, in seconds since 1970 (UTC).
    package var now: Double { mode == .frozen ? frozenAt : systemTime() + offsetSeconds }

    package var reading: Reading {
        let now = self.now
        return Reading(now: now, mode: mode, offsetSeconds: now - systemTime())
    }

    // MARK: - Changing it

    /// Sets the time to `instant`; `frozen` keeps it there, otherwise it runs on from there.
    package func set(_ instant: Double, frozen: Bool) throws {
        guard Self.range.contains(instant) else { throw ClockError.outOfRange(instant) }
        try apply(mode: frozen ? .frozen : .offset, instant: instant)
    }

    /// Moves the time forward by `seconds`; a frozen clock stays frozen, at the new value.
    package func advance(by seconds: Double) throws {
        guard seconds > 0, seconds <= Self.maximumAdvance else { throw ClockError.badDuration(seconds) }
        let target = now + seconds
        guard Self.range.contains(target) else { throw ClockError.outOfRange(target) }
        try apply(mode: mode, instant: target)
    }

    /// Back to the system's time, running.
    package func reset() throws {
        try apply(mode: .offset, instant: systemTime())
    }

    /// Saved first, then applied: a failed write leaves the clock as it was.
    private func apply(mode newMode: Mode, instant: Double) throws {
        let newOffset = newMode == .offset ? instant - systemTime() : 0
        let newFrozenAt = newMode == .frozen ? instant : 0
        if let database {
            var fields: [String: JSONValue] = ["mode": .string(newMode.rawValue)]
            if newMode == .frozen { fields["frozenAt"] = .number(newFrozenAt) } else { fields["offsetSeconds"] = .number(newOffset) }
            let upsert = try database.statement(
                literal: """
                    INSERT INTO device_settings (key, value) VALUES ('clock', ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
            try upsert.bind(JSONValue.object(fields).text, at: 1)
            try upsert.run()
        }
        mode = newMode
        offsetSeconds = newOffset
        frozenAt = newFrozenAt
        publish()
    }

    /// The clock as it is now, to the apps' processes (their `Date()`: the device-time preload).
    private func publish() {
        page?.publish(mode: mode, offsetSeconds: offsetSeconds, frozenAt: frozenAt)
    }
}
