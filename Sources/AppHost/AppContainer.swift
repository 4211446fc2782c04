import Posix

/// An app's container on a simulated device, as iOS gives each app one: `HOME/apps/BUNDLE-ID/` with
/// `Documents`, `Library` (`Preferences`, `Application Support`, `Caches`) and `tmp`. The app's process
/// is started so that Foundation's own directory APIs resolve inside it —
/// `FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)` (on Linux Foundation reads
/// it from `$XDG_CONFIG_HOME/user-dirs.dirs`, unquoted), `.applicationSupportDirectory`
/// (`XDG_DATA_HOME`), `.cachesDirectory` (`XDG_CACHE_HOME`) and `temporaryDirectory` (`TMPDIR`).
package struct AppContainer: Sendable {
    package let path: String
    package let bundleID: String

    package init(home: String, bundleID: String) {
        self.bundleID = bundleID
        path = home + "/apps/" + bundleID
    }

    /// The container at `path` if an OS named one, else the bundle's in `home`.
    package init(path: String?, home: String, bundleID: String) {
        guard let path else {
            self.init(home: home, bundleID: bundleID)
            return
        }
        self.init(at: path, bundleID: String(path.split(separator: "/").last ?? Substring(bundleID)))
    }

    private init(at path: String, bundleID: String) {
        self.path = path
        self.bundleID = bundleID
    }

    /// Why `id` cannot name a container (one path component of letters, digits, `.`, `-`, `_`; at
    /// most 155 bytes), or nil.
    package static func problem(bundleID id: String) -> String? {
        guard !id.isEmpty, id.utf8.count <= 155 else { return "a bundle id is 1 to 155 characters, not \(id.utf8.count)" }
        guard id != ".", id != "..",
            id.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F
            })
        else { return "\(OneLine.quote(id)) is not a bundle id: letters, digits, '.', '-' and '_' only (com.example.App)" }
        return nil
    }

    package var documents: String { path + "/Documents" }
    package var library: String { path + "/Library" }
    package var preferences: String { library + "/Preferences" }
    package var applicationSupport: String { library + "/Application Support" }
    package var caches: String { library + "/Caches" }
    package var temporary: String { path + "/tmp" }

    /// Creates the container's directories (mode 0700) and the file that names its documents folder.
    package func prepare() throws(SystemError) {
        for directory in [path, documents, library, preferences, applicationSupport, caches, temporary] {
            try Filesystem.makeDirectory(directory, mode: 0o700)
        }
        let userDirs = "XDG_DOCUMENTS_DIR=\(documents)\n"
        let file = preferences + "/user-dirs.dirs"
        if (try? Filesystem.readFile(file)) != Array(userDirs.utf8) {
            try Filesystem.writeAtomically(Array(userDirs.utf8), to: file)
        }
    }

    /// What the app's process is started with (replacing these names in the OS's own environment).
    package var environment: [String: String] {
        [
            "HOME": path, "TMPDIR": temporary, "XDG_CONFIG_HOME": preferences, "XDG_DATA_HOME": applicationSupport,
            "XDG_CACHE_HOME": caches,
        ]
    }

    /// Sets `environment` in this process, for an app that shares its process with the OS.
    package func applyToEnvironment() {
        for (name, value) in environment { setenv(name, value, 1) }
    }
}
