import Connectivity
import Control
import AppHost
import JSONText
import Posix

// MARK: - Several watches

extension PhoneOS {
    /// `runway phone switch-watch W` while the app is not running: the OS owns which watch is active, so
    /// it changes it in the WatchConnectivity service's store itself, and the app learns it when it next
    /// launches and activates. While the app runs, `runway` asks the app's session instead (its
    /// `sessionDidBecomeInactive`, `sessionDidDeactivate`): the store is then the session's.
    func switchWatch(_ name: String) throws -> SwitchWatchReply {
        guard childPID == 0 else {
            throw ControlError(
                state == .suspended
                    ? "the phone's app is suspended (SIGSTOP): runway phone app resume, then switch (its session makes the switch while it runs)"
                    : "the phone's app is running: its session makes the switch (runway phone switch-watch asks it; try again)")
        }
        guard home.hasStore else { throw ControlError.invalid("7005 deviceNotPaired: this phone has no store, so no watch is paired with it") }
        let database = try home.openStore(checkHealth: false)
        defer { database.close() }
        let outcome: WatchSwitchOutcome
        do {
            outcome = try PairedWatches.switchStored(database, to: name)
        } catch let error as WCError {
            throw ControlError.invalid("\(error.code.rawValue) \(error.name): \(error.message)")
        }
        if case let .switched(from, watch) = outcome {
            logger.notice("os.active-watch", ["watch": watch.watchDeviceID, "from": from ?? "-", "app": "not running: it learns it at its next launch"])
        }
        return DeviceHost.switchReply(outcome, by: "phone-os (the app is not running: it learns it at its next launch)")
    }
}
