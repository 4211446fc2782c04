import Connectivity
import Control
import AppHost
import Posix

// MARK: - Installing and deleting the watch app

extension WatchOS {
    /// `runway watch app uninstall` under watch-os, as watchOS deletes an app: the app is stopped, its
    /// container (`HOME/apps`) and what the system held for it — every lane's queued transfers, both
    /// application contexts, the quarantine, files on their way (`HOME/files`) — are deleted, and the
    /// service records the app as gone (`app.installed`, `app.active` and `app.complication` off: a deleted
    /// app has no complication on the face), all in one transaction of the store. watch-os's next `hello`
    /// tells the phone: `isWatchAppInstalled` false and `sessionWatchStateDidChange` on the phone, whose
    /// new transfers then fail with 7006 and whose queued ones wait. Nothing launches the app until
    /// `install` brings it back, empty; the pairing and the receive cursors stay (the device's).
    ///
    /// `install` over an installed app changes nothing (its data stays); over a deleted one it removes
    /// whatever a deletion cut short left of the old container, so the app always starts from nothing.
    func installAction(_ action: String) throws {
        let installed = WatchStoreReading.appInstalled(home: home)
        if action == "uninstall" {
            guard installed else { throw ControlError("the watch app is not installed: nothing to delete") }
            stopAppNow(reason: "the watch app is being deleted")
            closeProbe("the watch app is being deleted")
            try Self.forgetApp(home, settingState: [("app.installed", "0"), ("app.active", "0"), ("app.complication", "0")])
            // The deleted app's workout session ends with it: nothing recovers it.
            try system?.health.setActiveSession(nil)
            logger.notice("os.app-uninstalled", ["deleted": "the watch app's container, its queued transfers, contexts and files"])
        } else {
            guard !installed else {
                logger.notice("os.app-installed", ["over": "the installed app (its data kept)"])
                return
            }
            try Self.removeContainers(home)
            let database = try home.openStore(checkHealth: false)
            defer { database.close() }
            try database.transaction { try SessionStore.setStateValue(database, "app.installed", "1") }
            closeProbe("the watch app was installed")
            logger.notice("os.app-installed", ["over": "nothing: the app starts empty"])
        }
        // The phone hears it in the next hello (at once while it listens).
        connectSoon(afterMilliseconds: 0)
    }
}
