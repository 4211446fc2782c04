import Connectivity
import JSONText
import Posix
import Storage

/// `runway pair`: creates both homes if needed and records the pairing in both stores.
enum PairCommand {
    static let command = CLI.Command(
        path: ["pair"],
        synopsis: "--phone DIR --watch DIR [--name NAME] [--new] [--replace] [--json]",
        summary: """
            Pairs a watch with a phone: creates both homes if missing (mode 0700) and records the pairing
            (pairing id, both device ids, the phone's link socket) in both. The same two homes paired again keep
            their pairing (the same pairing id; the command says so) unless --new asks for a new one. A phone may
            have several watches: pairing it with another adds that watch, and the active one stays active
            (runway phone switch-watch changes it); --replace makes the new watch the phone's only one, and
            the others (with what was queued for them) are forgotten and refused with deviceNotPaired (7005).
            A watch has one phone: pairing it with another replaces its old pairing.
            Each pair writes a new secret into both homes (HOME/pairing-secrets, mode 0600): every connection
            of the link proves it, so only these two homes speak to each other (a home paired by an earlier
            RunWay has none and is refused until it is paired again); runway unpair removes it.
            The daemons may be running: they read the pairing on their next connection.
            The pair is remembered under NAME (default: "default", or the next free "pairN"), so that --home
            can be left out of other commands (runway list). Pairing the same two homes again keeps the entry.
            """,
        specs: [
            .option("phone", "DIR", "the phone's home directory"),
            .option("watch", "DIR", "the watch's home directory"),
            .option("name", "NAME", "the name to remember the pair by (letters, digits, - _ .)"),
            .flag("new", "a new pairing even if these two homes are already paired with each other"),
            .flag("replace", "make this the phone's only watch: its other watches are forgotten"),
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
        let replace = parsed.has("replace")
        let (pairing, kept, active, previouslyActive) = try pairHomes(phone, watch, new: parsed.has("new"), replace: replace)
        let registered = try registry.record(phone: phone.path, watch: watch.path, name: name, replacingPhone: replace)
        let activeNote =
            active
            ? ""
            : "; the phone's active watch is still \(previouslyActive ?? "-") (runway phone switch-watch \(registered.name) makes this one active)"
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
                    "active": .bool(active),
                ]).text)
        } else if kept {
            Output.out(
                "already paired: watch \(pairing.watchDeviceID) (\(watch.path)) with phone \(pairing.phoneDeviceID) (\(phone.path)); pairing \(pairing.pairingID) kept (--new for a new one), remembered as '\(registered.name)'\(activeNote)"
            )
        } else {
            Output.out(
                "paired watch \(pairing.watchDeviceID) (\(watch.path)) with phone \(pairing.phoneDeviceID) (\(phone.path)); pairing \(pairing.pairingID), remembered as '\(registered.name)'\(activeNote)"
            )
        }
        return 0
    }

    /// Creates both homes if missing and records their pairing in both stores — kept when they are already
    /// paired with each other, unless `new`; the watch added to the phone's (`replace`: made its only one) —
    /// without touching the registry (`runway scenario run`'s temporary homes are nobody's registered pair).
    /// Returns the pairing, whether it was kept, whether the watch is the phone's active one, and the one
    /// that was active before.
    static func pairHomes(
        _ phone: DeviceHome, _ watch: DeviceHome, new: Bool, replace: Bool
    ) throws -> (pairing: Pairing, kept: Bool, active: Bool, previouslyActive: String?) {
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
        let previouslyActive = try SessionStore.pairing(phoneStore)?.watchDeviceID
        // Already paired with each other, as these homes are now: kept, so that pairing twice (a script run
        // again) keeps the same pairing id.
        let known = try PairedWatches.find(phoneStore, watchDeviceID)
        let watchSide = try SessionStore.pairing(watchStore)
        let kept =
            !new && known != nil && watchSide?.pairingID == known?.pairingID
            && watchSide?.phoneDeviceID == phoneDeviceID && watchSide?.watchDeviceID == watchDeviceID
            && watchSide?.phoneLinkSocket == phone.linkSocketPath
        let pairing: Pairing
        if kept, let watchSide {
            pairing = watchSide
        } else {
            pairing = Pairing(
                pairingID: Identifier.uuid(), phoneDeviceID: phoneDeviceID, watchDeviceID: watchDeviceID,
                phoneLinkSocket: phone.linkSocketPath, pairedAt: wallClockSeconds())
            try SessionStore.setPairing(watchStore, pairing)
        }
        // The phone keeps every watch paired with it (one active at a time): a new one is added, the
        // active one stays active; --replace makes this the only one.
        let active: Bool
        if replace {
            try PairedWatches.replaceAll(phoneStore, pairing, watchHome: watch.path)
            active = true
        } else {
            active = try PairedWatches.add(phoneStore, pairing, watchHome: watch.path)
        }
        // The pairing seed: the phone learns now whether the watch app is installed (default yes), not
        // at the watch's first connection — else a fresh pair says APP NOT INSTALLED and phone-first
        // sends fail with 7006. A kept pairing is seeded again: the watch home's state now.
        let installed = try SessionStore.stateValue(watchStore, "app.installed") ?? "1"
        try PairedWatches.recordWatchAppInstalled(phoneStore, watchDeviceID, installed == "1")
        try shareNewSecret(pairing, phone, watch, phoneStore)
        return (pairing, kept, active, previouslyActive)
    }

    /// A new secret for the pairing, in both homes (`HOME/pairing-secrets/PAIRING-ID`, 0600): every pair
    /// makes a new one, a kept pairing included (a home paired by an earlier RunWay gets its first). The
    /// secrets of pairings these homes left behind go: the watch's other ones (it has one phone), and the
    /// phone's for watches no longer paired with it. A connection already up keeps going; the next
    /// handshake proves the new secret.
    private static func shareNewSecret(_ pairing: Pairing, _ phone: DeviceHome, _ watch: DeviceHome, _ phoneStore: Database) throws {
        let secret = PairingSecret.generate()
        let phoneSecrets = PairingSecrets(home: phone.path), watchSecrets = PairingSecrets(home: watch.path)
        try watchSecrets.write(secret, pairingID: pairing.pairingID)
        try phoneSecrets.write(secret, pairingID: pairing.pairingID)
        try watchSecrets.removeAll(except: [pairing.pairingID])
        try phoneSecrets.removeAll(except: Set(try PairedWatches.all(phoneStore).map(\.pairingID)))
    }
}
