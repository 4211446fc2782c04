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
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .clock, [.pair(["clock", "show"]) { _, _ in "Shows each device's time (local, TZ), and whether its clock runs (offset) or is frozen." }])
        package init() {}
    }

    /// `clock-set`: the time set to `at`; `frozen` keeps it there, otherwise it runs on from there.
    package struct SetTime: ControlCommand {
        package typealias Reply = ClockReply
        @Argument(.number(-1e12...1e12), "the time, in seconds since 1970", cli: .positional("TIME", syntax: .instant)) package var at: Double
        @Argument(.bool, "stop the clock there", cli: .option(help: "stop the clock at TIME")) package var frozen = false
        package static let spec = ControlCommandSpec(Self.self, "clock-set", ControlCommands.os, errors: ClockRequest.errors, "set the device clock")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .clock,
            [
                .pair(["clock", "set"]) { _, _ in
                    """
                    Sets the device clock to TIME, ISO 8601 with a UTC offset or Z (2026-10-01T07:00:00+09:00), between
                    2001-01-01 and 2100-01-01. It runs on from there, or stays there with --frozen until the next clock
                    command. Backwards is allowed: what was delivered stays delivered. Whatever falls due (the phone's
                    notifications) is delivered, in fire order, before the command returns.
                    """
                }
            ])
        package init() {}
    }

    /// `clock-advance`: the time moved on by `seconds`; a frozen clock stays frozen.
    package struct Advance: ControlCommand {
        package typealias Reply = ClockReply
        @Argument(.number(-1e12...1e12), "how far, in seconds", cli: .positional("DURATION", syntax: .duration)) package var seconds: Double
        package static let spec = ControlCommandSpec(Self.self, "clock-advance", ControlCommands.os, errors: ClockRequest.errors, "move the device clock on")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .clock,
            [
                .pair(["clock", "advance"]) { _, _ in
                    """
                    Moves the device clock forward by DURATION, [Nd][Nh][Nm][Ns] (7d, 1d12h, 90s): more than 0, at most
                    3650d. A frozen clock stays frozen at the new time. What falls due is delivered before it returns.
                    """
                }
            ])
        package init() {}
    }

    /// `clock-reset`: back to the system's time, running.
    package struct Reset: ControlCommand {
        package typealias Reply = ClockReply
        package static let spec = ControlCommandSpec(Self.self, "clock-reset", ControlCommands.os, "the device clock follows the system clock again")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .clock, [.pair(["clock", "reset"]) { _, _ in "Puts the device clock back on the system's time, running (offset 0)." }])
        package init() {}
    }
}
