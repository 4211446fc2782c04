import Connectivity
import Posix

/// What a cleanly stopped daemon leaves next to its store so that the next start may skip the full
/// health check (`PRAGMA quick_check`, whose cost grows with the store: ~1.6 ms per 1,000 flights).
///
/// `HOME/clean-shutdown` records the store file's identity and state — device, inode, size, modification
/// and change times — after the daemon closed its last connection (the write-ahead log checkpointed and
/// removed). The next start trusts the store without the full check only if the seal is there, the
/// store is still exactly that file with exactly those times, no write-ahead log has appeared, and the
/// seal itself was written strictly after the store's last change (so a change in the same clock tick as
/// the seal cannot hide). The seal is removed durably *before* the store is opened: a daemon that then
/// dies without stopping cleanly (SIGKILL, a crash, power loss) leaves no seal, and the next start runs
/// the full check. Anything that touched the store in between — a write, a truncation, a copy over it —
/// changes its change time, and the full check runs too.
package struct StoreSeal: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    /// The store's seal as it stands now, nil if it is not there.
    init?(storeAt path: String) {
        guard let info = Filesystem.status(of: path), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        let times = Filesystem.Times(info)
        modified = times.modified
        changed = times.changed
    }

    init?(text: String) {
        var fields: [Substring: Substring] = [:]
        for part in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            guard let equals = part.firstIndex(of: "=") else { continue }
            fields[part[..<equals]] = part[part.index(after: equals)...]
        }
        guard let device = fields["device"].flatMap({ UInt64($0) }), let inode = fields["inode"].flatMap({ UInt64($0) }),
            let size = fields["size"].flatMap({ Int64($0) }), let modified = fields["modified"].flatMap({ Int64($0) }),
            let changed = fields["changed"].flatMap({ Int64($0) })
        else { return nil }
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    var text: String { "runway-store-seal 1 device=\(device) inode=\(inode) size=\(size) modified=\(modified) changed=\(changed)\n" }

    // MARK: - At start-up

    /// What the seal says about the store.
    enum Verdict: Equatable {
        /// Sealed at a clean stop and untouched since: no check is needed.
        case sealed
        /// No seal at all: the last daemon was killed or crashed (or the home is new). SQLite's
        /// write-ahead log makes a killed process's commits atomic, so this alone is no sign of damage.
        case uncleanStop(String)
        /// A seal that does not match, or cannot be read or removed: something touched the store.
        case suspect(String)
    }

    /// What the seal says, read before anyone opens the store. Removes the seal either way (durably).
    static func consume(home: DeviceHome) -> Verdict {
        let sealPath = home.sealPath
        let sealStatus = Filesystem.status(of: sealPath)
        let recorded = (try? Filesystem.readFile(sealPath)).flatMap { StoreSeal(text: String(decoding: $0, as: UTF8.self)) }
        do {
            try Filesystem.removeDurably(sealPath)
        } catch {
            return .suspect("the seal could not be removed (\(error))")
        }
        guard let sealStatus else { return .uncleanStop("no clean shutdown recorded (the last run was killed or crashed, or this is a new home)") }
        guard let recorded else { return .suspect("the clean-shutdown record is unreadable") }
        guard let current = StoreSeal(storeAt: home.storePath) else { return .suspect("the store file is missing") }
        guard current == recorded else { return .suspect("the store file changed after the daemon stopped") }
        let sealWritten = Filesystem.Times(sealStatus).modified
        guard recorded.changed < sealWritten, recorded.modified < sealWritten else {
            return .suspect("the clean-shutdown record is not newer than the store's last change")
        }
        if let wal = Filesystem.status(of: home.storePath + "-wal"), wal.st_size > 0 {
            return .suspect("a write-ahead log appeared after the daemon stopped")
        }
        return .sealed
    }

    // MARK: - At a clean shutdown

    /// Writes the seal for the store as it stands now (its connections all closed). Nothing is written
    /// if a write-ahead log is still there (another process had the store open): the next start checks.
    package static func write(home: DeviceHome) throws -> Bool {
        if Filesystem.kind(of: home.storePath + "-wal") != .missing { return false }
        guard let seal = StoreSeal(storeAt: home.storePath) else { return false }
        // The seal must be strictly newer than the store's last change (file times move in clock ticks):
        // wait for the tick to pass, a few milliseconds at most.
        for _ in 0..<50 {
            try Filesystem.writeAtomically(Array(seal.text.utf8), to: home.sealPath)
            if let written = Filesystem.status(of: home.sealPath),
                Filesystem.Times(written).modified > max(seal.changed, seal.modified)
            {
                return StoreSeal(storeAt: home.storePath) == seal
            }
            usleep(2_000)
        }
        try Filesystem.removeDurably(home.sealPath)
        return false
    }
}
