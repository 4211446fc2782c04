import Posix
import PropertyLists

/// Activation, deactivation, the pairing and the watch switch (`SessionCore`'s first family of events).
extension SessionCore {
    /// Activation requested (by the app or its system), the device's state loaded, activation's outcome.
    mutating func handleActivationEvent(_ event: SessionEvent) -> [SessionAction] {
        switch event {
        case .activationRequested:
            guard !activationRequested else { return appJoins() }
            activationRequested = true
            return [.completeActivationSoon]
        case .systemActivationRequested:
            guard !activationRequested else { return [] }
            activationRequested = true
            appHeld = true
            return [.completeActivationSoon]
        case let .deviceStateLoaded(state):
            deviceID = state.deviceID
            pairing = state.pairing
            activePairingID = state.pairing?.pairingID
            local = state.local
            counterpart = state.counterpart
            counterpartVersion = state.counterpartVersion
            for lane in TransferLane.allCases { lanes[lane].window.forgetAcknowledgements() }
            return []
        case let .activationFailed(error):
            activationRequested = false
            if appHeld {
                appHeld = false
                return [.log(LogLine(.error, "session.system-activation-failed", ("error", "\(error)")))]
            }
            return [
                .log(LogLine(.error, "session.activation-failed", ("error", "\(error)"))),
                .tell(.activationDidComplete(.notActivated, error: error)),
            ]
        case .activationAwaitsFirstLink:
            // Nothing is announced while the app is held: there is nothing to wait for.
            if !appHeld { announcementAwaitsLink = true }
            return []
        case .activationSucceeded:
            activationState = .activated
            if appHeld { return [.log(LogLine(.info, "session.activated", ("device", deviceID), ("paired", isPaired), ("by", "system")))] }
            let line = SessionAction.log(LogLine(.info, "session.activated", ("device", deviceID), ("paired", isPaired)))
            return announcementAwaitsLink ? [line] : [line] + announceActivation()
        case .firstLinkSettled:
            guard announcementAwaitsLink else { return [] }
            announcementAwaitsLink = false
            return announceActivation()
        default:
            return []
        }
    }

    /// Deactivation, a pairing read again, and the watch switch.
    mutating func handleDeactivationEvent(_ event: SessionEvent) -> [SessionAction] {
        switch event {
        case .deactivationRequested:
            return [.closeLink(nil, reason: "session deactivated"), .then(.deactivationFinished)]
        case .deactivationFinished:
            isLinked = false
            return [.dropLink, .then(.messagesFailed(WCError(.notReachable, "the session was deactivated"))), .then(.deactivationSettled)]
        case .deactivationSettled:
            // The watch may have been reachable with no link (the phone in range): that ends here.
            let wasReachable = isReachable
            activationState = .notActivated
            activationRequested = false
            appHeld = false
            counterpartInRange = false
            return wasReachable ? [.tell(.reachabilityDidChange)] : []
        case let .pairingReloaded(reloaded, recordedInstalled):
            let before = pairing?.pairingID
            pairing = reloaded ?? pairing
            // A new pairing brings what `runway pair` recorded of the watch app (the pairing seed).
            if activationState == .activated, pairing?.pairingID != before, let recordedInstalled {
                counterpart.installed = recordedInstalled
            }
            return []
        case let .watchSwitchBegan(from, to):
            // Apple: "While in the inactive state, the session delivers any pending data to your delegate
            // object and prevents you from initiating any new data transfers."
            activationState = .inactive
            return [
                .log(LogLine(.notice, "session.watch-switched", ("from", from), ("to", to))),
                .then(.messagesFailed(WCError(.sessionInactive, "the paired device was switched"))),
                .tell(.didBecomeInactive),
            ]
        case .switchSettled:
            activationState = .notActivated
            activationRequested = false
            return [.tell(.didDeactivate)]
        default:
            return []
        }
    }

    /// The app activates a session its system activated (`systemActivationRequested`): from now on it is
    /// the app's. Activation still completing announces itself to the app as usual; completed, the app
    /// hears it now, and the link starts again so that the counterpart resends what was not taken while
    /// the app was held (the shell closes it only if it left something unread).
    mutating func appJoins() -> [SessionAction] {
        guard appHeld else { return [] }
        appHeld = false
        guard activationState == .activated else { return [] }
        return [.log(LogLine(.info, "session.app-joined", ("device", deviceID))), .restartLinkIfHeld] + announceActivation()
    }

    /// The app hears of activation, then of the transfers that finished while it did not run.
    func announceActivation() -> [SessionAction] {
        [.tell(.activationDidComplete(.activated, error: nil)), .reportFinishedTransfers(replayed: true)]
    }

    /// The first link is up (its handshake checked, before anything is resent or acknowledged on it): the
    /// counterpart's state it carries is adopted now, so the app reads it inside `activationDidComplete`,
    /// told next — then `linkEstablished` finds no change to tell, and the transfers that finished while
    /// the app did not run are replayed before those this link finishes.
    mutating func announceWithFirstLink(_ handshake: Handshake) -> [SessionAction] {
        announcementAwaitsLink = false
        let presence = AppPresence(installed: handshake.appInstalled, active: handshake.appActive, complicationEnabled: handshake.complicationEnabled)
        counterpart = presence
        counterpartVersion = handshake.appVersion
        contentPending = handshake.pendingTransfers
        contextPending = handshake.pendingContext
        counterpartNeedsUnlock = false
        if role == .watch { counterpartInRange = true }
        reachableBeforeLink = isReachable
        return [.saveCounterpartState(presence, version: handshake.appVersion)] + announceActivation()
    }
}
