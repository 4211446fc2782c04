import Connectivity
import JSONText

// MARK: - The arguments of the commands still declared as values, each declared once

/// The arguments of the commands `ControlCatalogue.swift` declares as `ControlCommandSpec` values, one
/// namespace per command (or group of commands that share them): the handler reads
/// `request[ControlCommands.ClockSet.at]`; the CLI sets it the same way. A command declared as a type
/// (`Sources/Control/Commands`) has its keys as its own static members instead.
extension ControlCommands {
    /// The largest string a request can carry: the control socket's frame.
    static let textBytes = ControlClient.frameLimit

    package enum Events {
        package static let limit = ControlArgument<Int>(
            "limit", .int(0...DelegateTrace.defaultCapacity), default: 100, "how many recent calls to answer with")
        package static let follow = ControlArgument<Bool>("follow", .bool, default: false, "then send each new call as an event frame")
    }
    package enum App {
        package static let watchAction = ControlArgument<String>(
            "action", .choice(["install", "uninstall", "foreground", "background"]), required: true, "what happens to the watch app")
        package static let osAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the phone app")
        package static let watchOSAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the watch app (watch-os)")
        package static let version = ControlArgument<String?>(
            "version", .string(bytes: 1...39), "install: the version, N(.N){0,3} (default: the one installed, or the app's own)")
    }
}
