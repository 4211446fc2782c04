import Posix
import Storage

/// What `Session.switchWatch(to:)` came to.
package enum WatchSwitchOutcome: Equatable, Sendable {
    /// The watch asked for is the active one already: nothing happened.
    case alreadyActive(PairedWatch)
    /// The active watch is now `to`; the app heard `sessionDidBecomeInactive` and, an iteration later,
    /// `sessionDidDeactivate` if its session was activated (it activates again to talk to `to`).
    case switched(from: String?, to: PairedWatch)
}

// MARK: - Several watches: Apple's switch, on the phone

extension Session {
    /// The watches paired with this phone (`runway pair` adds them), the active one among them.
    package func pairedWatches() throws -> [PairedWatch] { try PairedWatches.all(database) }

    /// Fault injection (the test command `receive-hold on|off`): the link is not read while held, so
    /// what the counterpart sends waits in transit — on the phone a watch switch then has something to
    /// deliver; on the watch the switch's acknowledgements and its closing error frame arrive in one read.
    /// Only the current link: the next one is read as usual.
    package func holdReceiving(_ held: Bool) {
        channel?.holdReceiving(held)
    }

    /// How many transfers are queued for each inactive watch (by device id).
    package func parkedTransferCounts() throws -> [String: Int] { try PairedWatches.parkedCounts(database) }

    /// Makes the watch `name` (its device id or its home) the active one, as the user switching watches
    /// on the iPhone does. With an activated session, Apple's order: the session goes `inactive`
    /// (`sessionDidBecomeInactive`; new transfers and messages are refused with 7016), what the old
    /// watch has already sent on the link is delivered to the delegate and acknowledged, the link
    /// closes, the old watch's queues are set aside and the new one's brought in (one transaction) — a
    /// transfer queued for the old watch stays queued for it — and an iteration later the session is
    /// `notActivated` (`sessionDidDeactivate`): the app must `activate()` again to talk to the new watch.
    /// Not activated (the app has not activated yet): only the store changes.
    package func switchWatch(to name: String) throws -> WatchSwitchOutcome {
        guard role == .phone else { throw WCError(.genericError, "only the phone has several watches to switch between") }
        let target = try PairedWatches.resolve(database, name)
        let active = try SessionStore.pairing(database)
        if active?.watchDeviceID == target.watchDeviceID { return .alreadyActive(target) }
        guard activationState != .inactive else { throw WCError(.sessionInactive, "a watch switch is already under way") }
        let talking = activationState == .activated
        if talking {
            handle(.watchSwitchBegan(from: active?.watchDeviceID ?? "-", to: target.watchDeviceID))
            if let channel {
                // "While in the inactive state, the session delivers any pending data to your delegate."
                channel.receiveWhatArrived()
                // Their acknowledgements go before the link does (the old watch lets go of them now).
                self.channel?.close(error: WCError(.notReachable, "the iPhone switched to another watch"), reason: "paired device switched")
            }
        }
        do {
            try PairedWatches.activate(database, target)
        } catch {
            // The old watch stays active; the app still hears the deactivation and activates again.
            if talking { apply([.later(.switchSettled)]) }
            throw error
        }
        logger.notice("session.active-watch", ["watch": target.watchDeviceID, "from": active?.watchDeviceID ?? "-"])
        if talking { apply([.later(.switchSettled)]) }
        return .switched(from: active?.watchDeviceID, to: target)
    }
}
