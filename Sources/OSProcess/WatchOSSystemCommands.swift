import Connectivity
import Control
import AppHost
import Posix

// MARK: - What the watch's system answers while its app sleeps

extension WatchOS {
    /// `runway link down|up` and `runway watch complication on|off` while the watch app is not running,
    /// as watchOS answers them: the radio and the watch face are the system's, not the app's. While the
    /// app runs its session holds both (`appHoldsTheLink`: the CLI asks the app), and it takes over what
    /// watch-os recorded in the home — `HOME/link-down`, the store's `app.complication` — when it starts.
    func registerSystemCommands(on router: ControlRouter) {
        router.on(ControlCommands.Link.self) { [unowned self] args in
            if let refused = appHoldsTheLink { throw refused }
            let state = args.state
            try linkConditions.setTakenDown(state == "down")
            logger.notice("link.\(state)", ["by": "runway link \(state)", "holder": "watch-os"])
            if state == "down" {
                if let probeTimer { loop.cancel(probeTimer) }
                probeTimer = nil
                closeProbe("taken down (runway link down)")
                setInRange(false)
            } else {
                attempt = 0
                connectSoon(afterMilliseconds: 0)
            }
            return LinkReply(link: state)
        }
        router.on(ControlCommands.Complication.self) { [unowned self] args in
            if let refused = appHoldsTheLink { throw refused }
            if let notInstalled = launchRefusal { throw ControlError("cannot change the complication: \(notInstalled)") }
            let enabled = args.state == "on"
            let database = try home.openStore(checkHealth: false)
            defer { database.close() }
            try database.transaction { try SessionStore.setStateValue(database, "app.complication", enabled ? "1" : "0") }
            logger.notice("complication.\(enabled ? "on" : "off")", ["by": "runway watch complication", "holder": "watch-os"])
            // The phone hears it in the next hello (isComplicationEnabled, sessionWatchStateDidChange).
            closeProbe("the complication changed: a new hello says so")
            connectSoon(afterMilliseconds: 0)
            return ComplicationReply(complicationEnabled: enabled)
        }
    }
}
