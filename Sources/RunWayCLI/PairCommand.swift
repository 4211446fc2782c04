import Connectivity
import Control
import JSONText
import Posix

/// `runway pair`: creates both homes if needed and records the pairing in both stores.
enum PairCommand {
    static let command = CLI.Command(
        path: ["pair"],
        synopsis: "--phone DIR --watch DIR [--name NAME] [--new] [--json]",
        summary: """
            Pairs a watch with a phone: creates both homes if missing (mode 0700) and records the pairing
            (pairing id, both device ids, the phone's link socket) in both. The same two homes paired again keep
            their pairing (the same pairing id; the command says so) unless --new asks for a new one. Pairing a
            home with another replaces its old pairing: a watch no longer paired with this phone is refused with
            deviceNotPaired (7005).
            The daemons may be running: they read the pairing on their next connection.
            The pair is remembered under NAME (default: "default", or the next free "pairN"), so that --home
            can be left out of other commands (runway list). Pairing the same two homes again keeps the entry.
            """,
        specs: [
            .option("phone", "DIR", "the phone's home directory"),
            .option("watch", "DIR", "the watch's home directory"),
            .option("name", "NAME", "the name to remember the pair by (letters, digits, - _ .)"),
            .flag("new", "a new pairing even if these two homes are already paired with each other"),
            CLI.jsonSpec,
        ],
        positionals: 0,
        run: run)

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let phone = DeviceHome(path: try parsed.required("phone"), role: .phone)
        let watch = DeviceHome(path: try parsed.required("watch"), role: .watch)
        guard phone.path != watch.path else { throw UsageError("the phone and the watch need different homes") }
        let name = parsed.value("name")
        if let name, !PairRegistry.isValidName(name) {
            throw UsageError("--name must be 1 to 64 letters, digits, '-', '_' or '.', not starting with '-'")
        }
        // Under the registry's lock, from its read (and so its check: a corrupt registry stops here,
        // untouched, before anything is created) to its write: `runway pair` run at once lose no pair.
        return try PairRegistry.update { registry in try pair(phone, watch, name: name, &registry, parsed) }
    }

    private static func pair(
        _ phone: DeviceHome, _ watch: DeviceHome, name: String?, _ registry: inout PairRegistry, _ parsed: ParsedArguments
    ) throws -> Int32 {
        let (pairing, kept) = try pairHomes(phone, watch, new: parsed.has("new"))
        let registered = try registry.record(phone: phone.path, watch: watch.path, name: name)
        try watch.prepare()
        if parsed.has("json") {
            Output.out(
                JSONValue.object([
                    "pairingId": .string(pairing.pairingID),
                    "phoneDeviceId": .string(pairing.phoneDeviceID),
                    "watchDeviceId": .string(pairing.watchDeviceID),
                    "phoneHome": .string(phone.path),
                    "watchHome": .string(watch.path),
                    "phoneLinkSocket": .string(pairing.phoneLinkSocket),
                    "name": .string(registered.name),
                    "kept": .bool(kept),
                ]).text)
        } else if kept {
            Output.out(
                "already paired: watch \(pairing.watchDeviceID) (\(watch.path)) with phone \(pairing.phoneDeviceID) (\(phone.path)); pairing \(pairing.pairingID) kept (--new for a new one), remembered as '\(registered.name)'"
            )
        } else {
            Output.out(
                "paired watch \(pairing.watchDeviceID) (\(watch.path)) with phone \(pairing.phoneDeviceID) (\(phone.path)); pairing \(pairing.pairingID), remembered as '\(registered.name)'"
            )
        }
        return 0
    }

    /// Creates both homes if missing and records their pairing in both stores — kept when they are already
    /// paired with each other, unless `new` — without touching the registry (`runway scenario run`'s
    /// temporary homes are nobody's registered pair).
    static func pairHomes(_ phone: DeviceHome, _ watch: DeviceHome, new: Bool) throws -> (Pairing, kept: Bool) {
        try phone.prepare()
        try watch.prepare()
        let phoneStore = try phone.openStore()
        let watchStore = try watch.openStore()
        defer {
            phoneStore.close()
            watchStore.close()
        }
        let phoneDeviceID = try SessionStore.deviceID(phoneStore, role: .phone)
        let watchDeviceID = try SessionStore.deviceID(watchStore, role: .watch)
        // Already paired with each other, as these homes are now: kept, so that pairing twice (a script run
        // again) keeps the same pairing id.
        let existing = try SessionStore.pairing(phoneStore)
        let watchSide = try SessionStore.pairing(watchStore)
        let kept =
            !new && existing != nil && existing == watchSide
            && existing?.phoneDeviceID == phoneDeviceID && existing?.watchDeviceID == watchDeviceID
            && existing?.phoneLinkSocket == phone.linkSocketPath
        let pairing: Pairing
        if kept, let existing {
            pairing = existing
        } else {
            pairing = Pairing(
                pairingID: Identifier.uuid(), phoneDeviceID: phoneDeviceID, watchDeviceID: watchDeviceID,
                phoneLinkSocket: phone.linkSocketPath, pairedAt: wallClockSeconds())
            try SessionStore.setPairing(phoneStore, pairing)
            try SessionStore.setPairing(watchStore, pairing)
        }
        // The pairing seed: the phone learns now whether the watch app is installed (default yes), not
        // at the watch's first connection — else a fresh pair says APP NOT INSTALLED and phone-first
        // sends fail with 7006. A kept pairing is seeded again: the watch home's state now.
        let installed = try SessionStore.stateValue(watchStore, "app.installed") ?? "1"
        try SessionStore.setStateValue(phoneStore, "peer.installed", installed == "1" ? "1" : "0")
        return (pairing, kept)
    }
}
