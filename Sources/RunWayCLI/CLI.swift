import Connectivity
import Devices
import Glibc
import JSONText
import Posix
import RunWayApp

/// `runway`: the command-line client of the simulated pair.
public enum CLI {
    /// One subcommand: where it sits (`phone logbook`), its options, and what it does.
    struct Command: Sendable {
        let path: [String]
        let synopsis: String
        let summary: String
        let specs: [ArgumentSpec]
        let positionals: Int
        let run: @Sendable (ParsedArguments) throws -> Int32
    }

    static let commands: [Command] = [
        PairCommand.command,
        WatchCommands.record, WatchCommands.status, LinkCommands.command("down"), LinkCommands.command("up"),
    ] + SessionCLI.appCommands + SessionCLI.commands(.watch) + QuarantineCLI.commands(.watch) + [
        PhoneCommands.status, PhoneCommands.logbook, PhoneCommands.flight, PhoneCommands.delete, PhoneCommands.ui,
    ] + SessionCLI.commands(.phone) + QuarantineCLI.commands(.phone) + PhoneOSCommands.appCommands + PhoneOSCommands.osCommands + [
        NotificationCommands.notifications, NotificationCommands.reminders, NotificationCommands.reschedule,
    ] + ClockCommands.all

    public static func main(_ arguments: [String]) -> Int32 {
        // The longest command path that prefixes the arguments.
        let match = commands
            .filter { arguments.starts(with: $0.path) }
            .max { $0.path.count < $1.path.count }
        guard let command = match else {
            if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
                Output.out(usage())
                return arguments.isEmpty ? 2 : 0
            }
            let prefix = arguments.prefix { !$0.hasPrefix("-") }
            let group = commands.filter { prefix.count > 0 && $0.path.starts(with: prefix.prefix(1)) }
            if !group.isEmpty && (arguments.contains("--help") || arguments.contains("-h")) {
                Output.out(usage(group))
                return 0
            }
            Output.err("runway: unknown command '\(prefix.joined(separator: " "))'\n\n\(usage(group.isEmpty ? commands : group))")
            return 2
        }
        let rest = Array(arguments.dropFirst(command.path.count))
        let parsed: ParsedArguments
        do {
            parsed = try Arguments.parse(rest, specs: command.specs, maximumPositionals: command.positionals)
        } catch {
            Output.err("runway \(command.path.joined(separator: " ")): \(error.message)\n\n\(help(command))")
            return 2
        }
        if parsed.wantsHelp {
            Output.out(help(command))
            return 0
        }
        do {
            return try command.run(parsed)
        } catch let error as UsageError {
            Output.err("runway \(command.path.joined(separator: " ")): \(error.message)\n\n\(help(command))")
            return 2
        } catch let error as ControlError {
            Output.err("runway: \(error.message)")
            return error.exitStatus
        } catch let error as WCError {
            Output.err("runway: \(error)")
            return 1
        } catch let error as DeviceHome.HomeError {
            Output.err("runway: \(error)")
            return 2
        } catch {
            Output.err("runway: \(error)")
            return 1
        }
    }

    static func help(_ command: Command) -> String {
        """
        usage: runway \(command.path.joined(separator: " ")) \(command.synopsis)

        \(command.summary)

        options:
        \(Arguments.describe(command.specs + [.flag("help", "show this help")]))
        """
    }

    static func usage(_ list: [Command] = commands) -> String {
        let lines = list.map { "  runway \($0.path.joined(separator: " ")) \($0.synopsis)" }
        return """
        usage: runway COMMAND [options]

        The command-line client of RunWay Pair, a simulated iPhone + Apple Watch running app.
        Start the devices with `phone-daemon --home P` and `watch-agent --home W` first.

        commands:
        \(lines.joined(separator: "\n"))

        `runway COMMAND --help` describes one. Exit status: 0 success, 1 the operation failed (a daemon
        not running, an unknown flight), 2 invalid usage or input.
        """
    }

    // MARK: - Shared pieces

    static let homeSpec = ArgumentSpec.option("home", "DIR", "the device's home directory")
    static let jsonSpec = ArgumentSpec.flag("json", "print JSON for scripts")

    /// A client of the daemon of the home in `--home`. A path that is not a home at all is invalid input
    /// (exit 2); a home whose daemon is not running is a failure (exit 1).
    static func client(_ parsed: ParsedArguments, _ role: DeviceRole) throws -> ControlClient {
        let home = DeviceHome(path: try parsed.required("home"), role: role)
        switch Filesystem.kind(of: home.path) {
        case .missing: throw ControlError.invalid("\(home.path) does not exist, so it is not a \(role.rawValue) home")
        case .directory: break
        default: throw ControlError.invalid("\(home.path) is not a \(role.rawValue) home (it is not a directory)")
        }
        guard home.hasStore || Filesystem.kind(of: home.controlSocketPath) == .socket else {
            throw ControlError.invalid(DeviceHome.HomeError.notAHome(path: home.path, role: role).description)
        }
        return try ControlClient(home: home)
    }
}

/// stdout and stderr without Foundation.
enum Output {
    static func out(_ text: String) { write(1, text.hasSuffix("\n") ? text : text + "\n") }
    static func err(_ text: String) { write(2, text.hasSuffix("\n") ? text : text + "\n") }

    static func write(_ fd: Int32, _ text: String) {
        var copy = text
        copy.withUTF8 { writeBytes(fd, UnsafeRawBufferPointer($0)) }
    }

    static func writeBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            // A closed pipe (`runway … | head`) ends the output, silently.
            guard let n = try? systemCall("write", { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }) else { return }
            offset += n
        }
    }

    static func writeBytes(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeBytes(fd, $0) }
    }
}
