import Control
import JSONText
import Posix

/// The pairs `runway pair` has made, remembered so that `--home` can be left out: like `xcrun simctl
/// list`, one small JSON file in the user's state directory.
///
///     $RUNWAY_STATE_DIR/pairs.json, else $XDG_STATE_HOME/runway/pairs.json, else ~/.local/state/runway/pairs.json
///
/// A registry that does not parse is never rewritten: every command that needs it says which file is
/// corrupt (exit 2) and leaves it as it is. Every change goes through `update`: under a lock, read, changed,
/// replaced atomically — so `runway pair` and `unpair` run at once lose nothing.
struct PairRegistry {
    struct Pair: Equatable {
        var name: String
        var phone: String
        var watch: String
    }

    var pairs: [Pair] = []

    static var directory: String {
        if let explicit = environment("RUNWAY_STATE_DIR") { return explicit }
        if let state = environment("XDG_STATE_HOME") { return state + "/runway" }
        return (environment("HOME") ?? "/tmp") + "/.local/state/runway"
    }

    static var path: String { directory + "/pairs.json" }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    // MARK: - Reading and writing

    /// The registry on disk (empty if there is none yet).
    static func load() throws -> PairRegistry {
        let path = Self.path
        guard Filesystem.kind(of: path) != .missing else { return PairRegistry() }
        let bytes: [UInt8]
        do { bytes = try Filesystem.readFile(path) } catch { throw corrupt(path, "\(error)") }
        return try decode(bytes, path: path)
    }

    /// A registry that cannot be read: one line naming it, exit 2, and the file left as it is.
    static func corrupt(_ path: String, _ why: String) -> ControlError {
        .invalid("the pair registry \(path) is corrupt (\(why)); it was left as it is: fix or remove it")
    }

    /// The registry from its file's bytes, whatever they are (`scripts/fuzz --target registry`): a file
    /// that is not what `encoded` writes is one line naming `path`, exit 2.
    static func decode(_ bytes: [UInt8], path: String) throws(ControlError) -> PairRegistry {
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw corrupt(path, "\(error)") }
        guard let items = json["pairs"]?.arrayValue else { throw corrupt(path, "no \"pairs\" list") }
        var registry = PairRegistry()
        for item in items {
            guard let name = item["name"]?.stringValue, let phone = item["phone"]?.stringValue,
                let watch = item["watch"]?.stringValue, isValidName(name)
            else { throw corrupt(path, "an entry without a valid name, phone and watch") }
            registry.pairs.append(Pair(name: name, phone: phone, watch: watch))
        }
        return registry
    }

    static var lockPath: String { directory + "/pairs.lock" }

    /// Runs `body` on the registry as it is on disk now, with every other runway's change to it held off:
    /// an exclusive `flock` on `pairs.lock` next to it (waited for, up to 30 s), and what `body` changed
    /// written back atomically (a temporary file, fsynced, renamed over it) before the lock is let go. So
    /// of two `runway pair` run at once, the second reads what the first wrote, and both pairs are kept.
    /// Nothing is written when `body` throws or changes nothing.
    static func update<R>(_ body: (inout PairRegistry) throws -> R) throws -> R {
        try Filesystem.makeDirectory(directory, mode: 0o700)
        let lock: FileLock
        do {
            lock = try FileLock(path: lockPath, waitingUpTo: 30_000)
        } catch {
            throw ControlError("the pair registry is busy: \(error) for more than 30 s (another runway pair or unpair?)")
        }
        defer { lock.unlock() }
        var registry = try load()
        let before = registry.pairs
        let result = try body(&registry)
        if registry.pairs != before { try registry.save() }
        return result
    }

    /// Writes the registry (`update` calls it, under the lock).
    private func save() throws {
        try Filesystem.makeDirectory(Self.directory, mode: 0o700)
        try Filesystem.writeAtomically(encoded, to: Self.path)
    }

    /// The file's bytes: what `decode` reads back to the same registry.
    var encoded: [UInt8] {
        let json = JSONValue.object([
            "pairs": .array(
                pairs.map { pair in
                    .object(["name": .string(pair.name), "phone": .string(pair.phone), "watch": .string(pair.watch)])
                })
        ])
        var writer = JSONWriter()
        writer.write(json)
        writer.bytes.append(0x0A)
        return writer.bytes
    }

    /// Letters, digits, `-`, `_` and `.`, 1 to 64 of them, not starting with `-`.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != 0x2D else { return false }
        return bytes.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
        }
    }

    // MARK: - Changing it

    /// Records the pair of `phone` and `watch` (absolute paths) under `name`, or under a new name.
    /// The same two homes again keep their entry (and its name, unless another is asked for).
    mutating func record(phone: String, watch: String, name requested: String?, replacingPhone: Bool = false) throws -> Pair {
        if let requested, let other = pairs.first(where: { $0.name == requested && ($0.phone != phone || $0.watch != watch) }) {
            throw ControlError.invalid(
                "a pair named \(OneLine.quote(requested)) already exists (\(other.phone), \(other.watch)): choose another name, or runway unpair \(requested) first"
            )
        }
        if let index = pairs.firstIndex(where: { $0.phone == phone && $0.watch == watch }) {
            if let requested { pairs[index].name = requested }
            return pairs[index]
        }
        // A watch belongs to one pair: pairing it anew replaces its old pairing (as `runway pair` does). A
        // phone may be in several, one per watch, unless it is paired with --replace.
        pairs.removeAll { $0.watch == watch || (replacingPhone && $0.phone == phone) }
        var name = requested ?? "default"
        var number = 2
        while pairs.contains(where: { $0.name == name }) {
            name = "pair\(number)"
            number += 1
        }
        let pair = Pair(name: name, phone: phone, watch: watch)
        pairs.append(pair)
        return pair
    }

    // MARK: - Finding a pair

    /// The pair named by `--pair`, else by `RUNWAY_PAIR`, else the only one.
    func resolve(_ parsed: ParsedArguments) throws -> Pair {
        if let name = parsed.value("pair") ?? Self.environment("RUNWAY_PAIR") {
            guard let pair = pairs.first(where: { $0.name == name }) else {
                let known = pairs.map(\.name)
                throw ControlError.invalid(
                    "no pair named \(OneLine.quote(name))\(known.isEmpty ? " (none is registered: runway pair --phone P --watch W)" : " (registered: \(known.joined(separator: ", ")))")"
                )
            }
            return pair
        }
        switch pairs.count {
        case 1: return pairs[0]
        case 0: throw ControlError.invalid("missing --home (and no pair is registered to take it from: runway pair --phone P --watch W)")
        default:
            throw ControlError.invalid(
                "missing --home, and \(pairs.count) pairs are registered (\(pairs.map(\.name).joined(separator: ", "))): say which with --pair NAME or RUNWAY_PAIR"
            )
        }
    }
}
