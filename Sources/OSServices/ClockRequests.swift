import Control
import JSONText
import Posix

// MARK: - The device clock's answers

/// What the OS does with each of the clock's calls (`ClockRequest`, declared with its command in
/// `Control/Commands/OSClockRequests.swift`), the same on both devices and in both kinds of OS. After a
/// change whatever became due (the phone's notifications) is delivered before the reply, and goes into it
/// (`delivered`); the running app is told the new clock (`SystemServices.onClockChanged`).
extension ClockRequest.Show: OSRequest {
    package func answer(by os: SystemServices) throws -> ClockReply { ClockReply(os.clock.reading) }
}

extension ClockRequest.SetTime: OSRequest {
    package func answer(by os: SystemServices) throws -> ClockReply {
        try os.changeClock(by: Self.spec) { try $0.set(at, frozen: frozen) }
    }
}

extension ClockRequest.Advance: OSRequest {
    package func answer(by os: SystemServices) throws -> ClockReply {
        try os.changeClock(by: Self.spec) { try $0.advance(by: seconds) }
    }
}

extension ClockRequest.Reset: OSRequest {
    package func answer(by os: SystemServices) throws -> ClockReply {
        try os.changeClock(by: Self.spec) { try $0.reset() }
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
