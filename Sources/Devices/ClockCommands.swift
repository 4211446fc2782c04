import Control
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

    func register(on router: ControlRouter) {
        router.on("clock-show") { _, connection in
            connection.reply(clock.reading.json)
        }
        router.on("clock-set") { request, connection in
            let at = request[ControlCommands.ClockSet.at]
            try change(request, connection) { try clock.set(at, frozen: request[ControlCommands.ClockSet.frozen]) }
        }
        router.on("clock-advance") { request, connection in
            let seconds = request[ControlCommands.ClockAdvance.seconds]
            try change(request, connection) { try clock.advance(by: seconds) }
        }
        router.on("clock-reset") { request, connection in
            try change(request, connection) { try clock.reset() }
        }
    }

    /// Applies a change of the clock, logs it, lets `onChange` deliver what became due, and replies.
    private func change(_ request: ControlRequest, _ connection: ControlConnection, _ body: () throws -> Void) throws {
        let before = clock.reading
        do { try body() } catch let error as DeviceClock.ClockError { throw ControlError.invalid(error.description) }
        let after = clock.reading
        logger.notice(
            "clock.changed",
            [
                "by": request.command, "from": Timestamp.iso8601(before.now), "to": Timestamp.iso8601(after.now),
                "mode": after.mode.rawValue,
            ])
        var fields = after.json.objectValue ?? [:]
        fields.merge(try onChange()) { _, new in new }
        connection.reply(.object(fields))
    }
}
