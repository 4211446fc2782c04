// MARK: - The device clock, kept by the OS: each call one type (`ControlCommand`), answered as an `OSRequest`

/// The device clock's calls (`clock-show|set|advance|reset`), the same on both devices and in both kinds
/// of OS: each one type, whose stored properties are its arguments (`Codable`: what `OSChannel` carries).
/// The OS answers each (`OSServices/ClockRequests.swift`).
package enum ClockRequest {
    /// This family, in the catalogue's order (`ControlCommands.osServiceCommands`).
    package static let commands: [any ControlCommand.Type] = [Show.self, SetTime.self, Advance.self, Reset.self]
    static let errors: [ControlErrorSpec] = [.invalid("the clock would leave 2001-01-01 to 2100-01-01")]

    /// `clock-show`: the device clock now.
    package struct Show: ControlCommand {
        package typealias Reply = ClockReply
        package static let spec = ControlCommandSpec(Self.self, "clock-show", ControlCommands.os, "the device clock")
        package init() {}
    }

    /// `clock-set`: the time set to `at`; `frozen` keeps it there, otherwise it runs on from there.
    package struct SetTime: ControlCommand {
        package typealias Reply = ClockReply
        @Argument(.number(-1e12...1e12), "the time, in seconds since 1970") package var at: Double
        @Argument(.bool, "stop the clock there") package var frozen = false
        package static let spec = ControlCommandSpec(Self.self, "clock-set", ControlCommands.os, errors: ClockRequest.errors, "set the device clock")
        package init() {}
    }

    /// `clock-advance`: the time moved on by `seconds`; a frozen clock stays frozen.
    package struct Advance: ControlCommand {
        package typealias Reply = ClockReply
        @Argument(.number(-1e12...1e12), "how far, in seconds") package var seconds: Double
        package static let spec = ControlCommandSpec(Self.self, "clock-advance", ControlCommands.os, errors: ClockRequest.errors, "move the device clock on")
        package init() {}
    }

    /// `clock-reset`: back to the system's time, running.
    package struct Reset: ControlCommand {
        package typealias Reply = ClockReply
        package static let spec = ControlCommandSpec(Self.self, "clock-reset", ControlCommands.os, "the device clock follows the system clock again")
        package init() {}
    }
}
