import Connectivity
import Glibc
import Posix
import Storage

/// The parts of a home only the device uses: the WatchConnectivity service's store, opened, checked and
/// migrated.
extension DeviceHome {
    /// Opens the store, checks its health, applies every layer's migrations and checks the home's role.
    ///
    /// A store that fails `PRAGMA quick_check` (or is not a database at all) is refused and never
    /// written to; one written by a newer version (migrations this program does not know) is refused;
    /// so is a missing or empty store in a home that was initialised (`HOME/initialised`).
    public func openStore(checkHealth: Bool = true) throws -> Database {
        try openStore(check: checkHealth ? .always : .never).database
    }

    /// When the full health check runs.
    public enum StoreCheck: Sendable {
        /// Every time (`runway pair`).
        case always
        /// Unless the daemon that last used the store stopped cleanly and nothing touched the store
        /// since (`StoreSeal`): the daemons' start-up.
        case unlessSealed
        case never
    }

    /// Opens the store (see `openStore(checkHealth:)`); also says whether the full check ran and why.
    public func openStore(check: StoreCheck) throws -> (database: Database, checkedBecause: String?) {
        try refuseLostStore()
        // The seal is consumed whatever the policy: once anyone opens the store, it vouches for nothing.
        let unsealedBecause = StoreSeal.consume(home: self)
        let checkedBecause: String? =
            switch check {
            case .always: "always checked here"
            case .unlessSealed: unsealedBecause
            case .never: nil
            }
        let initialised = Filesystem.kind(of: markerPath) != .missing
        let database: Database
        do {
            database = try Database(path: storePath)
            if initialised, try database.scalarInt("SELECT count(*) FROM sqlite_master") == 0 {
                database.close()
                throw HomeError.storeLost(home: path, store: storePath, what: "holds no tables")
            }
            if checkedBecause != nil, let problems = try database.check() {
                database.close()
                throw HomeError.unhealthyStore(path: storePath, problems: String(problems.prefix(300)))
            }
        } catch let error as StorageError where error.kind == .corrupt {
            throw HomeError.unhealthyStore(path: storePath, problems: error.message)
        }
        try Migrator.migrate(database, Self.migrations)
        if let recorded = try SessionStore.recordedRole(database), recorded != role {
            database.close()
            throw HomeError.wrongRole(path: path, expected: role, found: recorded)
        }
        if !initialised {
            // From now on this home has a store: losing it is an accident, not a fresh start. (A store
            // made by an older version, without the marker, is adopted the same way.)
            do {
                try Filesystem.writeAtomically(Array("runway home: \(role.rawValue), store initialised at \(wallClockSeconds())\n".utf8), to: markerPath)
            } catch {
                database.close()
                throw HomeError.system(error)
            }
        }
        return (database, checkedBecause)
    }

    /// A home that was initialised whose store file is gone or empty (zero bytes: SQLite would take it
    /// for a new database) is refused before SQLite sees it, so nothing is created or written.
    private func refuseLostStore() throws(HomeError) {
        guard Filesystem.kind(of: markerPath) != .missing else { return }
        guard let info = Filesystem.status(of: storePath) else {
            throw .storeLost(home: path, store: storePath, what: "is missing")
        }
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 {
            throw .storeLost(home: path, store: storePath, what: "is empty (0 bytes)")
        }
    }

    /// Every table of a device's store: the WatchConnectivity service's. (The OS keeps its own store,
    /// `HOME/os.sqlite`; the app keeps its in its container.)
    public static let migrations = SessionStore.migrations
}
