import Connectivity
import AppHost
import Posix

// MARK: - Deleting an app: what both OSes do

extension DeviceOperatingSystem {
    /// Kills the running app and waits for it, now (a deletion, an update, a restart).
    func stopAppNow(reason: String) {
        guard childPID > 0 else { return }
        logger.notice("os.app-stopped", ["pid": childPID, "reason": reason])
        endApp(SIGKILL)
        // Reaped here rather than on SIGCHLD: what follows (deleting its container) needs it gone.
        while childPID > 0 {
            reap()
            if childPID > 0 { usleep(1000) }
        }
    }

    /// Deletes what only the app held, the app stopped: the session's queued transfers, contexts,
    /// quarantine and half-received files (`SessionStore.forgetApp`, in one transaction with `state`: the
    /// watch records there that its app is gone), then its container(s) (`HOME/apps`) and the bytes of its
    /// queued files (`HOME/files`). The pairing and the receive cursors stay.
    static func forgetApp(_ home: DeviceHome, settingState state: [(key: String, value: String)] = []) throws {
        if Filesystem.kind(of: home.storePath) == .regular || !state.isEmpty {
            let database = try home.openStore(checkHealth: false)
            defer { database.close() }
            try SessionStore.forgetApp(database, settingState: state)
        }
        try removeContainers(home)
    }

    /// `HOME/apps`, `HOME/files` and `HOME/bundles`, if there.
    static func removeContainers(_ home: DeviceHome) throws {
        for directory in [home.path + "/apps", home.path + "/files", home.path + "/bundles"] where Filesystem.kind(of: directory) == .directory {
            try removeTree(directory)
        }
    }

    /// `rm -rf`, without following symbolic links out of the home.
    static func removeTree(_ path: String) throws {
        if Filesystem.kind(of: path) == .directory {
            for name in FileQueue.entries(of: path) { try removeTree(path + "/" + name) }
            _ = try systemCall("rmdir(\(path))") { rmdir(path) }
        } else {
            try Filesystem.remove(path)
        }
    }
}
