import Connectivity
import Control
import Posix
import Storage

// MARK: - The device's own state: status, the watch's link and face, the phone's watches

extension Render {
    static let device: [Render] = [
        // The status in sections; on a phone run by phone-os, the OS's rows too.
        .of(ControlCommands.Status.self) { reply, _, context in
            DeviceStatusText.render(reply.json, os: context.device == .phone ? try? context.client().send(ControlCommands.OSStatus()) : nil)
        },
        .of(ControlCommands.Link.self) { _, command, _ in "link \(command.state)" },
        .of(ControlCommands.Complication.self) { reply, _, _ in "complication: \(reply.complicationEnabled ? "on the watch face" : "off")" },
    ]
}

/// `runway phone switch-watch WATCH`: the user choosing another of the phone's watches, as the iPhone's
/// automatic switch does when a watch is put on. WATCH is a watch home, a registered pair's name, or a
/// device id: the phone is asked for the device id.
extension ControlCommands.SwitchWatch: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let name = command.watch
        let parsed = context.parsed
        let registered = try? PairRegistry.load().pairs.first { $0.name == name }
        // The phone: --home or --pair as everywhere; else the registered pair WATCH names, if it does.
        let phonePath = try parsed.value("home") ?? (parsed.value("pair") == nil ? registered?.phone : nil) ?? CLI.homePath(parsed, .phone)
        let watch = try watchIdentity(name, registered: registered)
        var arguments = parsed
        arguments.values["home"] = phonePath
        let reply = try CLI.client(arguments, .phone).send(ControlCommands.SwitchWatch { $0.watch = watch })
        Output.out(context.json ? reply.json.text : reply.message)
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
