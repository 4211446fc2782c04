import Connectivity
import Control
import JSONText
import Posix

// MARK: - The phone's watches: which is active, and the switch

extension DeviceHost {
    /// `switch-watch`, on the phone's app process (phone-os answers
    /// `switch-watch` itself while the app is not running: `PhoneOS.switchWatch`).
    func registerWatchCommands(on router: ControlRouter) {
        router.on(ControlCommands.SwitchWatch.self) { [unowned self] args in
            let outcome: WatchSwitchOutcome
            do {
                outcome = try session.switchWatch(to: args.watch)
            } catch let error as WCError where error.code == .deviceNotPaired {
                throw ControlError.invalid("\(error.code.rawValue) \(error.name): \(error.message)")
            } catch let error as WCError {
                throw ControlError(error)
            }
            return Self.switchReply(outcome, by: "the app's session (it activates again to talk to the new watch)")
        }
    }

    /// The test command `receive-hold`, on both devices: the phone holds what the old watch sends (a
    /// switch then has something to deliver); the watch holds what the phone answers (the switch's
    /// acknowledgements and its closing error then arrive in one read).
    func registerReceiveHold(on router: ControlRouter) {
        router.on(ControlCommands.ReceiveHold.self) { [unowned self] args in
            let held = args.state == "on"
            session.holdReceiving(held)
            logger.warning("fault.receive-hold", ["held": held])
            return ReceiveHoldReply(held: held)
        }
    }

    /// What `switch-watch` answers, wherever it ran.
    package static func switchReply(_ outcome: WatchSwitchOutcome, by: String) -> SwitchWatchReply {
        switch outcome {
        case let .alreadyActive(watch):
            SwitchWatchReply(
                switched: false, activeWatch: watch.watchDeviceID, watchHome: watch.watchHome,
                message: "watch \(watch.watchDeviceID) is already the active watch: nothing to do")
        case let .switched(from, watch):
            SwitchWatchReply(
                switched: true, activeWatch: watch.watchDeviceID, watchHome: watch.watchHome, previousWatch: from, by: by,
                message: "watch \(watch.watchDeviceID) is now the active watch (was \(from ?? "none"))")
        }
    }

    /// The phone's `status` rows for its watches: the active one, and each paired one with what is
    /// queued for it while inactive.
    package static func watchRows(_ watches: [PairedWatch], active: String?, parked: [String: Int]) -> [String: JSONValue] {
        [
            "activeWatch": active.map(JSONValue.string) ?? .null,
            "pairedWatches": .array(
                watches.map { watch in
                    .object([
                        "deviceId": .string(watch.watchDeviceID), "home": .string(watch.watchHome), "pairingId": .string(watch.pairingID),
                        "active": .bool(watch.watchDeviceID == active), "queuedWhileInactive": .integer(Int64(parked[watch.watchDeviceID] ?? 0)),
                    ])
                }),
        ]
    }
}
