import Control
import JSONText
import Posix

/// `clock-show|set|advance|reset`: the device clock's control commands, the same on both devices.
/// After a change `onChange` runs before the reply, so whatever became due (the phone's notifications)
/// is delivered before the command returns, and goes into the reply (`delivered`).
struct ClockCommands {
    let clock: DeviceClock
    let logger: Logger
    var onChange: () throws -> [NotificationItem]? = { nil }

    func register(on router: ControlRouter) {
        router.on(ControlCommands.clockShow) { _, connection in
            connection.reply(ClockReply(clock.reading))
        }
        router.on(ControlCommands.clockSet) { request, connection in
            let at = request[ControlCommands.ClockSet.at]
            try change(request, connection) { try clock.set(at, frozen: request[ControlCommands.ClockSet.frozen]) }
        }
        router.on(ControlCommands.clockAdvance) { request, connection in
            let seconds = request[ControlCommands.ClockAdvance.seconds]
            try change(request, connection) { try clock.advance(by: seconds) }
        }
        router.on(ControlCommands.clockReset) { request, connection in
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
        connection.reply(ClockReply(after, delivered: try onChange()))
    }
}

extension ClockReply {
    /// `{"now":"2026-10-08T07:00:00Z","mode":"frozen","offsetSeconds":604800.0}`: the time to the
    /// millisecond when it has a fraction, the offset to the millisecond.
    init(_ reading: DeviceClock.Reading, delivered: [NotificationItem]? = nil) {
        self.init(
            now: Timestamp.iso8601(reading.now, milliseconds: reading.now.rounded(.down) != reading.now), mode: reading.mode.rawValue,
            offsetSeconds: (reading.offsetSeconds * 1000).rounded() / 1000, delivered: delivered)
    }
}
