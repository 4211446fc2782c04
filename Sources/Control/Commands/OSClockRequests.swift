// MARK: - The device clock, kept by the OS: each call one type (`ControlCommand`), answered as an `OSRequest`

/// The device clock's calls (`clock-show|set|advance|reset`), the same on both devices and in both kinds
/// of OS: each one type, whose stored properties are its arguments (`Codable`: what `OSChannel` carries)
/// and whose typed keys are declared beside them. The OS answers each (`OSServices/ClockRequests.swift`).
package enum ClockRequest {
    /// This family, in the catalogue's order (`ControlCommands.osServiceCommands`).
    package static let commands: [any ControlCommand.Type] = [Show.self, SetTime.self, Advance.self, Reset.self]
    static let errors: [ControlErrorSpec] = [.invalid("the clock would leave 2001-01-01 to 2100-01-01")]

    /// `clock-show`: the device clock now.
    package struct Show: ControlCommand, Codable, Sendable {
        package typealias Reply = ClockReply
        package static let spec = ControlCommandSpec(Self.self, "clock-show", ControlCommands.os, "the device clock")
        package init() {}
    }

    /// `clock-set`: the time set to `at`; `frozen` keeps it there, otherwise it runs on from there.
    package struct SetTime: ControlCommand, Codable, Sendable {
        package typealias Reply = ClockReply
        package static let at = ControlArgument<Double>("at", .number(-1e12...1e12), required: true, "the time, in seconds since 1970")
        package static let frozen = ControlArgument<Bool>("frozen", .bool, default: false, "stop the clock there")
        package static let spec = ControlCommandSpec(
            Self.self, "clock-set", ControlCommands.os, arguments: [at, frozen], errors: ClockRequest.errors, "set the device clock")
        package var at: Double
        package var frozen: Bool
        package init(at: Double, frozen: Bool) {
            self.at = at
            self.frozen = frozen
        }
    }

    /// `clock-advance`: the time moved on by `seconds`; a frozen clock stays frozen.
    package struct Advance: ControlCommand, Codable, Sendable {
        package typealias Reply = ClockReply
        package static let seconds = ControlArgument<Double>("seconds", .number(-1e12...1e12), required: true, "how far, in seconds")
        package static let spec = ControlCommandSpec(
            Self.self, "clock-advance", ControlCommands.os, arguments: [seconds], errors: ClockRequest.errors, "move the device clock on")
        package var seconds: Double
        package init(seconds: Double) { self.seconds = seconds }
    }

    /// `clock-reset`: back to the system's time, running.
    package struct Reset: ControlCommand, Codable, Sendable {
        package typealias Reply = ClockReply
        package static let spec = ControlCommandSpec(Self.self, "clock-reset", ControlCommands.os, "the device clock follows the system clock again")
        package init() {}
    }
}
