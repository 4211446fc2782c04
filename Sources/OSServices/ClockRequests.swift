import Control
import JSONText
import Posix

/// The device clock's requests (`clock-show|set|advance|reset`), the same on both devices and in both
/// kinds of OS: each declared once (`OSRequest`). After a change whatever became due (the phone's
/// notifications) is delivered before the reply, and goes into it (`delivered`); the running app is told
/// the new clock (`SystemServices.onClockChanged`).
package enum ClockRequest {
    package static let all: [any OSRequest.Type] = [Show.self, SetTime.self, Advance.self, Reset.self]

    /// The device clock now.
    package struct Show: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.clockShow }
        package init() {}
        package func answer(by os: SystemServices) throws -> ClockReply { ClockReply(os.clock.reading) }
    }

    /// Sets the time to `at`; `frozen` keeps it there, otherwise it runs on from there.
    package struct SetTime: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.clockSet }
        package var at: Double
        package var frozen: Bool
        package init(at: Double, frozen: Bool) {
            self.at = at
            self.frozen = frozen
        }
        package func answer(by os: SystemServices) throws -> ClockReply {
            try os.changeClock(by: Self.command) { try $0.set(at, frozen: frozen) }
        }
    }

    /// Moves the time on by `seconds`; a frozen clock stays frozen.
    package struct Advance: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.clockAdvance }
        package var seconds: Double
        package init(seconds: Double) { self.seconds = seconds }
        package func answer(by os: SystemServices) throws -> ClockReply {
            try os.changeClock(by: Self.command) { try $0.advance(by: seconds) }
        }
    }

    /// Back to the system's time, running.
    package struct Reset: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.clockReset }
        package init() {}
        package func answer(by os: SystemServices) throws -> ClockReply {
            try os.changeClock(by: Self.command) { try $0.reset() }
        }
    }
}

extension DeviceClock.ClockError: OSRefusal {}

extension SystemServices {
    /// Applies a change of the clock, logs it, delivers what became due, tells the running app, and
    /// says the clock as it is now with what was delivered.
    func changeClock(by command: ControlCommandSpec, _ change: (DeviceClock) throws -> Void) throws -> ClockReply {
        let before = clock.reading
        try change(clock)
        let after = clock.reading
        logger.notice(
            "clock.changed",
            [
                "by": command.name, "from": Timestamp.iso8601(before.now), "to": Timestamp.iso8601(after.now),
                "mode": after.mode.rawValue,
            ])
        let delivered = deliverDue().map(\.item)
        for listener in onClockChanged { listener(clock.reading) }
        return ClockReply(after, delivered: delivered)
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
