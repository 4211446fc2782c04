import Connectivity
import Glibc
import Posix
import Storage
import RunWayApp

/// A simulated device's home directory (mode 0700): its store, its sockets and its lock file.
///
///     HOME/store.sqlite   the device's SQLite store (WAL: also store.sqlite-wal, -shm)
///     HOME/lock           flock'ed by the running daemon, holds its pid
///     HOME/control.sock   the daemon's control socket (the `runway` CLI, UI clients)
///     HOME/link.sock      the phone's link socket (the watch connects here)
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

    public enum HomeError: Error, CustomStringConvertible, Sendable {
        case notADirectory(String)
        case notAHome(path: String, role: DeviceRole)
        case wrongRole(path: String, expected: DeviceRole, found: DeviceRole)
        case unhealthyStore(path: String, problems: String)
        case socketPath(UnixSocketAddress.AddressError)
        case system(SystemError)

        public var description: String {
            switch self {
            case let .notADirectory(path): "\(path) exists and is not a directory, so it cannot be a device home"
            case let .notAHome(path, role): "\(path) is not a \(role.rawValue) home (it has no store.sqlite; create homes with runway pair or by starting the daemon)"
            case let .unhealthyStore(path, problems):
                "the store \(path) is damaged (\(problems)); refusing to start. The file is left untouched: restore it from a copy, or move it aside to start with an empty store"
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
    /// written to; one written by a newer version (migrations this program does not know) is refused.
    public func openStore(checkHealth: Bool = true) throws -> Database {
        let database: Database
        do {
            database = try Database(path: storePath)
            if checkHealth, let problems = try database.check() {
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
        return database
    }

    /// Whether the directory looks like a device home (it has a store).
    public var hasStore: Bool { Filesystem.kind(of: storePath) == .regular }

    /// Every table of a device's store: the session's, then the app's.
    public static let migrations = SessionStore.migrations + FlightStore.migrations
        + DeviceClock.migrations + UserNotificationCenter.migrations
}
