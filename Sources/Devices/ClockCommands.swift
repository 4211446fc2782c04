import JSONText
import Posix
import RunWayApp

/// `clock-show|set|advance|reset`: the device clock's control commands, the same on both devices.
/// After a change `onChange` runs before the reply, so whatever became due (the phone's notifications)
/// is delivered before the command returns; it may add fields to the reply (`delivered`).
struct ClockCommands {
    let clock: DeviceClock
    let logger: Logger
    var onChange: () throws -> [String: JSONValue] = { [:] }

    func handle(_ request: ControlRequest, _ connection: ControlConnection) throws -> Bool {
        let before = clock.reading
        switch request.command {
        case "clock-show":
            connection.reply(clock.reading.json)
            return true
        case "clock-set":
            guard let at = try request.double("at", range: -1e12...1e12) else { throw ControlError.invalid("clock-set needs at (seconds since 1970)") }
            try mapped { try clock.set(at, frozen: request.bool("frozen")) }
        case "clock-advance":
            guard let seconds = try request.double("seconds", range: -1e12...1e12) else { throw ControlError.invalid("clock-advance needs seconds") }
            try mapped { try clock.advance(by: seconds) }
        case "clock-reset":
            try mapped { try clock.reset() }
        default:
            return false
        }
        let after = clock.reading
        logger.notice("clock.changed", [
            "by": request.command, "from": Timestamp.iso8601(before.now), "to": Timestamp.iso8601(after.now),
            "mode": after.mode.rawValue,
        ])
        var fields = after.json.objectValue ?? [:]
        fields.merge(try onChange()) { _, new in new }
        connection.reply(.object(fields))
        return true
    }

    /// A time or duration out of range is invalid input (exit 2); the clock is unchanged.
    private func mapped(_ body: () throws -> Void) throws {
        do { try body() } catch let error as DeviceClock.ClockError { throw ControlError.invalid(error.description) }
    }
}
