import Posix

/// A simulated device's home directory (mode 0700): its store, its sockets and its lock file.
///
///     HOME/store.sqlite     the device's SQLite store (WAL: also store.sqlite-wal, -shm)
///     HOME/initialised      written once, when the store is first created: this home has a store, and
///                           a missing or empty one is an accident, never a fresh start
///     HOME/clean-shutdown   the store's seal, left by a daemon that stopped cleanly (`StoreSeal`)
///     HOME/lock             holds the running daemon's pid (the lock itself is on the directory)
///     HOME/pairing-secrets/ the pair's secret per pairing, 0600 (`PairingSecrets`): each link proves it
///     HOME/control.sock     the daemon's control socket (the `runway` CLI, UI clients)
///     HOME/link.sock        the phone's link socket (the watch connects here)
///     HOME/os.sock          phone-os's control socket, when phone-os runs the phone
package struct DeviceHome: Sendable {
    package let path: String
    package let role: DeviceRole

    package init(path: String, role: DeviceRole) {
        self.path = Filesystem.absolutePath(path)
        self.role = role
    }

    package var storePath: String { path + "/store.sqlite" }
    package var lockPath: String { path + "/lock" }
    package var controlSocketPath: String { path + "/control.sock" }
    package var linkSocketPath: String { path + "/link.sock" }
    /// The control socket of `phone-os`, the phone's simulated iOS, when it runs this home.
    package var osControlSocketPath: String { path + "/os.sock" }
    package var markerPath: String { path + "/initialised" }
    package var sealPath: String { path + "/clean-shutdown" }
    /// Written when a check found the store damaged: the next start checks in full before anything else.
    package var damagePath: String { path + "/store-damaged" }

    package enum HomeError: Error, CustomStringConvertible, Sendable {
        case notADirectory(String)
        case notAHome(path: String, role: DeviceRole)
        case wrongRole(path: String, expected: DeviceRole, found: DeviceRole)
        case unhealthyStore(path: String, problems: String)
        /// The home was initialised, and its store is gone or empty: never silently started afresh.
        case storeLost(home: String, store: String, what: String)
        case socketPath(UnixSocketAddress.AddressError)
        case system(SystemError)

        package var description: String {
            switch self {
            case let .notADirectory(path): "\(path) exists and is not a directory, so it cannot be a device home"
            case let .notAHome(path, role):
                "\(path) is not a \(role.rawValue) home (it has no store.sqlite; create homes with runway pair or by starting the daemon)"
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
    package func prepare() throws(HomeError) {
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

    package func controlSocketAddress() throws(HomeError) -> UnixSocketAddress {
        do { return try UnixSocketAddress(path: controlSocketPath) } catch { throw .socketPath(error) }
    }

    package func linkSocketAddress() throws(HomeError) -> UnixSocketAddress {
        do { return try UnixSocketAddress(path: linkSocketPath) } catch { throw .socketPath(error) }
    }

    /// Whether the directory looks like a device home (it has a store).
    package var hasStore: Bool { Filesystem.kind(of: storePath) == .regular }
}
