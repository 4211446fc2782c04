import Connectivity
import Glibc
import Posix
import Storage
import RunWayApp

/// A simulated device's home directory (mode 0700): its store, its sockets and its lock file.
///
///     HOME/store.sqlite     the device's SQLite store (WAL: also store.sqlite-wal, -shm)
///     HOME/initialised      written once, when the store is first created: this home has a store, and
///                           a missing or empty one is an accident, never a fresh start
///     HOME/clean-shutdown   the store's seal, left by a daemon that stopped cleanly (`StoreSeal`)
///     HOME/lock             holds the running daemon's pid (the lock itself is on the directory)
///     HOME/control.sock     the daemon's control socket (the `runway` CLI, UI clients)
///     HOME/link.sock        the phone's link socket (the watch connects here)
public struct DeviceHome: Sendable {
    public let path: String
    public let role: DeviceRole

    public init(path: String, role: DeviceRole) {
        self.path = Filesystem.absolutePath(path)
        self.role = role
    }

    public var storePath: String { path + "/store.sqlite" }
    public var lockPath: String { path + "/lock" }
    public var controlSocketPath: String { path + "/control.sock" }
    public var linkSocketPath: String { path + "/link.sock" }
    public var markerPath: String { path + "/initialised" }
    public var sealPath: String { path + "/clean-shutdown" }

    public enum HomeError: Error, CustomStringConvertible, Sendable {
        case notADirectory(String)
        case notAHome(path: String, role: DeviceRole)
        case wrongRole(path: String, expected: DeviceRole, found: DeviceRole)
        case unhealthyStore(path: String, problems: String)
        /// The home was initialised, and its store is gone or empty: never silently started afresh.
        case storeLost(home: String, store: String, what: String)
        case socketPath(UnixSocketAddress.AddressError)
        case system(SystemError)

        public var description: String {
            switch self {
            case let .notADirectory(path): "\(path) exists and is not a directory, so it cannot be a device home"
            case let .notAHome(path, role): "\(path) is not a \(role.rawValue) home (it has no store.sqlite; create homes with runway pair or by starting the daemon)"
            case let .unhealthyStore(path, problems):
                "the store \(path) is damaged (\(problems)); refusing to start. The file is left untouched: restore it from a copy, or move it aside and remove \(path.dropLast("store.sqlite".count))initialised to start with an empty store"
            case let .storeLost(home, store, what):
                "the store \(store) \(what), but \(home) was initialised (\(home)/initialised): refusing to start afresh, which would forget the pairing and everything queued. Nothing was changed: restore the store from a copy, or remove \(home)/initialised and \(store)* to start this home empty on purpose"
            case let .wrongRole(path, expected, found): "\(path) is a \(found.rawValue) home, not a \(expected.rawValue) home"
            case let .socketPath(error): "\(error.description) (choose a shorter home path)"
            case let .system(error): error.description
            }
        }
    }

    /// Checks that every socket path fits `sun_path`, then creates the directory if missing (mode 0700):
    /// a home that can never work is refused before anything is created.
    public func prepare() throws(HomeError) {
        _ = try controlSocketAddress()
        if role == .phone { _ = try linkSocketAddress() }
        switch Filesystem.kind(of: path) {
        case .directory, .missing: break
        default: throw .notADirectory(path)
        }
        do {
            try Filesystem.makeDirectory(path, mode: 0o700)
        } catch {
            throw .system(error)
        }
    }

    public func controlSocketAddress() throws(HomeError) -> UnixSocketAddress {
        do { return try UnixSocketAddress(path: controlSocketPath) } catch { throw .socketPath(error) }
    }

    public func linkSocketAddress() throws(HomeError) -> UnixSocketAddress {
        do { return try UnixSocketAddress(path: linkSocketPath) } catch { throw .socketPath(error) }
    }

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
        let checkedBecause: String? = switch check {
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

    /// Whether the directory looks like a device home (it has a store).
    public var hasStore: Bool { Filesystem.kind(of: storePath) == .regular }

    /// Every table of a device's store: the session's, then the app's.
    public static let migrations = SessionStore.migrations + FlightStore.migrations
        + DeviceClock.migrations + UserNotificationCenter.migrations
}
