import Connectivity
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
    package func openStore(checkHealth: Bool = true) throws -> Database {
        try openStore(check: checkHealth ? .always : .never).database
    }

    /// When the full health check runs.
    package enum StoreCheck: Sendable {
        /// Every time (`runway pair`).
        case always
        /// Unless the daemon that last used the store stopped cleanly and nothing touched the store
        /// since (`StoreSeal`).
        case unlessSealed
        /// The daemons' start-up: skipped when sealed; after an unclean stop (no seal at all: a SIGKILL,
        /// a crash) left to the caller to run alongside, off the critical path (`BackgroundCheck`), so
        /// that start-up after a crash takes the same time at any store size; on the critical path
        /// whenever there is evidence against the store — a seal that does not match (the store changed
        /// while stopped) or cannot be read, or damage an earlier check found (`HOME/store-damaged`).
        case deferredAfterUncleanStop
        case never
    }

    /// A store opened by `openStore(check:)`, and what was done about its full check.
    package struct OpenedStore {
        package let database: Database
        /// Why the full check ran before the store was opened for business, if it did.
        package let checkedBecause: String?
        /// Why the full check is owed but was left to the caller (`deferredAfterUncleanStop`), if it is.
        package let deferredBecause: String?
    }

    /// Opens the store (see `openStore(checkHealth:)`); also says whether the full check ran, or is owed, and why.
    package func openStore(check: StoreCheck) throws -> OpenedStore {
        try refuseLostStore()
        // The seal is consumed whatever the policy: once anyone opens the store, it vouches for nothing.
        let verdict = StoreSeal.consume(home: self)
        let damageFound = Filesystem.kind(of: damagePath) != .missing
        var deferredBecause: String?
        var checkedBecause: String?
        switch (check, verdict) {
        case (.never, _): break
        case (.always, _): checkedBecause = "always checked here"
        case (_, _) where damageFound: checkedBecause = "an earlier check found the store damaged (\(damagePath))"
        case (_, .sealed): break
        case (.deferredAfterUncleanStop, .uncleanStop(let why)): deferredBecause = why
        case (_, .uncleanStop(let why)), (_, .suspect(let why)): checkedBecause = why
        }
        let initialised = Filesystem.kind(of: markerPath) != .missing
        let database: Database
        do {
            database = try Database(path: storePath)
            if initialised, try database.scalarInt("SELECT count(*) FROM sqlite_master") == 0 {
                database.close()
                throw HomeError.storeLost(home: path, store: storePath, what: "holds no tables")
            }
            if checkedBecause != nil {
                var problems: String?
                do {
                    problems = try database.check()
                } catch {
                    guard error.kind == .corrupt else { throw error }
                    problems = error.message
                }
                if let problems {
                    // Marked first, so that closing does not copy the write-ahead log into the file: a
                    // store refused is left exactly as it was found.
                    database.health.markDamaged(problems)
                    database.close()
                    throw HomeError.unhealthyStore(path: storePath, problems: String(problems.prefix(300)))
                }
            }
            if checkedBecause != nil, damageFound {
                // Repaired (or replaced) since the damage was found: the record has served its purpose.
                try Filesystem.removeDurably(damagePath)
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
        return OpenedStore(database: database, checkedBecause: checkedBecause, deferredBecause: deferredBecause)
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
    package static let migrations = SessionStore.migrations
}
