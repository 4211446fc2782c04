import Connectivity
import Control
import JSONText
import Posix
import Storage

/// `runway phone switch-watch W`: the user choosing another of the phone's watches, as the iPhone's
/// automatic switch does when a watch is put on.
enum SwitchWatchCommand {
    static let command = CLI.Command(
        path: ["phone", "switch-watch"], synopsis: "WATCH [--home P] [--json]",
        summary: """
            Makes WATCH — a watch home, the name of a registered pair, or a watch's device id — the phone's
            active watch. It must be paired with the phone (runway pair adds watches; one is active at a time).
            While the phone's app runs, its session goes inactive (sessionDidBecomeInactive), delivers what the
            old watch had already sent, closes the old watch's link and then deactivates (sessionDidDeactivate);
            the app activates again to talk to the new watch. What was queued for the old watch stays queued for
            it and goes when it is active again. Under phone-os with the app not running, the OS changes it and
            the app learns it at its next launch. The watch already active: nothing happens, and it says so. A
            watch not paired with the phone: one line, exit 2.
            """,
        specs: [CLI.homeSpec, CLI.pairSpec, CLI.jsonSpec], positionals: 1,
        run: run)

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let name = parsed.positionals[0]
        guard !name.isEmpty else { throw ControlError.invalid("WATCH must not be empty: a watch home, a pair's name or a device id") }
        let registered = try? PairRegistry.load().pairs.first { $0.name == name }
        // The phone: --home or --pair as everywhere; else the registered pair WATCH names, if it does.
        let phonePath = try parsed.value("home") ?? (parsed.value("pair") == nil ? registered?.phone : nil) ?? CLI.homePath(parsed, .phone)
        let watch = try watchIdentity(name, registered: registered)
        var arguments = parsed
        arguments.values["home"] = phonePath
        let reply = try CLI.client(arguments, .phone).send(
            ControlCommands.SwitchWatch { $0.watch = watch })
        Output.out(parsed.has("json") ? reply.json.text : reply.message)
        return 0
    }

    /// What the phone is asked for: the watch's device id, read from its home (a directory, or the home of
    /// the pair named `name`); else `name` as given (a device id, which the phone checks).
    static func watchIdentity(_ name: String, registered: PairRegistry.Pair?) throws -> String {
        let home: String
        if Filesystem.kind(of: name) == .directory {
            home = Filesystem.absolutePath(name)
        } else if let registered {
            home = registered.watch
        } else {
            return name
        }
        let store = DeviceHome(path: home, role: .watch).storePath
        guard Filesystem.kind(of: store) == .regular, let database = try? Database(path: store, readOnly: true) else {
            throw ControlError.invalid("\(home) is not a watch home (it has no store.sqlite): pair it first (runway pair --phone P --watch \(home))")
        }
        defer { database.close() }
        guard let role = try? SessionStore.recordedRole(database), role == .watch, let id = try? SessionStore.recordedDeviceID(database) else {
            throw ControlError.invalid("\(home) is not a watch home (its store is not a watch's)")
        }
        return id
    }
}
