import Connectivity
import Posix

// MARK: - The watch app's state, as its OS (watch-os) says it

extension DeviceHost {
    /// Under `watch-os` the OS decides whether the watch app is in the foreground — launched there (`app
    /// open`, `RUNWAY_LAUNCH_MODE`), or moved by `app open|close` (told on the attached connection) — and
    /// the session tells the phone (its `isReachable`). The app's version is kept in the service's store,
    /// so that watch-os speaks for the watch with it while the app is not running.
    func followOperatingSystem() throws {
        guard configuration.role == .watch else { return }
        try database.transaction { try SessionStore.setStateValue(database, "app.version", configuration.session.appVersion) }
        guard let os = remoteOS else { return }
        let foreground = (os.lastAppState ?? AppLaunch.mode) == "foreground"
        try session.setLocalAppActive(foreground)
        logger.info("startup.launched-by-os", ["mode": AppLaunch.mode ?? "?", "reason": AppLaunch.reason ?? "?"])
        os.appStateObservers.append { [unowned self] state in
            do {
                try self.session.setLocalAppActive(state == "foreground")
            } catch {
                self.logger.error("app.state-not-saved", ["state": state, "error": "\(error)"])
            }
        }
    }
}
