import AppHost
import Connectivity
import JSONText
import Posix

// MARK: - Suspension as Apple's systems do it, and waking for what arrives (issue 50)

/// A background app whose work is done is suspended by its OS, as iOS suspends one "shortly after" its
/// background work and watchOS once its background tasks are complete: the app says its device has been
/// quiet (`X_IDLE=1`, after `--suspend-after-idle-ms`), and the OS stops it (SIGSTOP) if it is ready, in
/// the background, has made the first delivery its launch was for, has no WatchKit task open and runs no
/// workout. A suspended app keeps its memory; its budget keeps running, and at its end it is reclaimed,
/// suspended or not (Apple: "the system may purge suspended apps at any time").
///
/// It is woken (SIGCONT, its budget renewed) for what wakes an app on Apple's devices: the counterpart's
/// message, a transfer (userInfo, complication, context, file) or a workout event on its link — the OS
/// keeps a copy of the app's established connection (`FDSTORE=1`, `AppLaunch.storeLink`) and peeks at
/// what waits on it (`PeekedTraffic`), never for the link's own acknowledgements — and, on the phone, the
/// watch connecting again (the session that answers it is in the app's process). A user's `app suspend`
/// is woken the same way (the budget stays stopped), unless the OS runs with `--no-wake`.
extension DeviceOperatingSystem {
    /// `X_IDLE=1`: suspends the app if its background work is done.
    func appIdle() {
        guard mayBeSuspendedBySystem, supervision.firstDeliveryMade, tasksOpen == 0 else { return }
        if suspendAsked {
            suspendAsked = false
            return suspendBySystem("its background tasks are complete")
        }
        suspendBySystem("its background work is done (quiet for \(options.suspendAfterIdleMilliseconds) ms)")
    }

    /// Asks the app to say `X_IDLE=1` as soon as its link is quiet (a watch app whose tasks are complete:
    /// watchOS suspends it then), so that what it sent is not frozen in its process with it.
    func suspendWhenQuiet() {
        guard mayBeSuspendedBySystem else { return }
        suspendAsked = true
        let event = JSONValue.object(["event": .string("suspendWhenQuiet")])
        for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
    }

    /// A ready background app running no workout, which the OS may suspend (not with
    /// `--suspend-after-idle-ms 0`).
    var mayBeSuspendedBySystem: Bool {
        options.suspendAfterIdleMilliseconds > 0 && childPID > 0 && !endingApp && state == .background && supervision.isReady && !workoutRunning
    }

    /// Suspends the background app, its work done (`reason`): SIGSTOP; its budget runs on.
    func suspendBySystem(_ reason: String) {
        guard mayBeSuspendedBySystem else { return }
        stateBeforeSuspend = .background
        ProcessStop.signal(childPID, SIGSTOP)
        state = .suspended
        suspendedBySystem = true
        systemSuspensions += 1
        logger.info(
            "os.suspended",
            [
                "pid": childPID, "by": "system", "reason": reason,
                "remainingBudgetMs": (supervision.remainingBudget(at: loop.nowNanoseconds) ?? 0) / 1_000_000,
            ])
        watchForWake()
        rearmSupervision()
    }

    /// The app handed the OS a copy of its link (`FDSTORE=1`, `FDNAME=link`): the newest one counts.
    func storeLink(_ descriptor: FileDescriptor) {
        let watching = watchingForWake
        if watching { stopWatchingForWake() }
        dropStoredLink()
        storedLink = descriptor
        if watching { watchForWake() }
    }

    /// The copy of the app's link, let go (the app is gone, or handed a newer one).
    func dropStoredLink() {
        guard let link = storedLink else { return }
        storedLink = nil
        link.close()
    }

    /// While the app is suspended: look at what arrives on its link (and the device's own wake sources).
    func watchForWake() {
        guard options.wakesSuspendedApp, state == .suspended, !watchingForWake else { return }
        watchingForWake = true
        if let link = storedLink {
            let raw = link.rawValue
            loop.register(raw, interest: .readable) { [unowned self] _ in self.lookAtLink(raw) }
        }
        for source in wakeSources {
            loop.register(source.descriptor, interest: .readable) { [unowned self] _ in self.wake(source.reason, key: source.key) }
        }
    }

    func stopWatchingForWake() {
        guard watchingForWake else { return }
        watchingForWake = false
        if let wakeRecheck { loop.cancel(wakeRecheck) }
        wakeRecheck = nil
        if let link = storedLink { loop.unregister(link.rawValue) }
        for source in wakeSources { loop.unregister(source.descriptor) }
    }

    /// Something is readable on the suspended app's link: wake it if it is for the app.
    private func lookAtLink(_ raw: Int32) {
        guard watchingForWake, let link = storedLink, link.rawValue == raw else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let n: Int
        switch try? link.receive(into: &buffer, peek: true) {
        case .wouldBlock?: return
        case let .bytes(count)?: n = count
        case .endOfFile?, nil:
            // The counterpart closed the link: nothing for the app until it reconnects (then it wakes it).
            loop.unregister(raw)
            return
        }
        switch buffer.withUnsafeBytes({ PeekedTraffic(UnsafeRawBufferPointer(rebasing: $0[..<n])) }) {
        case let .wakes(_, reason, key): wake(reason, key: key)
        case let .malformed(reason): wake("the link carries what is not a frame (\(reason))", key: "link")
        case .nothingToWakeFor:
            // Acknowledgements and states only: look again shortly rather than spin on a readable socket.
            loop.setInterest(raw, [])
            wakeRecheck = loop.schedule(afterMilliseconds: 200) { [weak self] in
                guard let self, self.watchingForWake, self.storedLink?.rawValue == raw else { return }
                self.wakeRecheck = nil
                self.loop.setInterest(raw, .readable)
            }
        }
    }

    /// Resumes the suspended app for what arrived (`reason`, counted under `key`).
    func wake(_ reason: String, key: String) {
        guard childPID > 0, state == .suspended else { return stopWatchingForWake() }
        stopWatchingForWake()
        ProcessStop.signal(childPID, SIGCONT)
        let bySystem = suspendedBySystem
        suspendedBySystem = false
        state = stateBeforeSuspend
        wakes[key, default: 0] += 1
        logger.info("os.woken", ["pid": childPID, "reason": reason, "state": state.rawValue, "suspendedBy": bySystem ? "system" : "user"])
        expiryWarned = false
        if state == .background {
            // Woken for something: the whole budget again, as for a message (`X_MESSAGE=1`).
            supervision.toBackground(at: loop.nowNanoseconds)
            if workoutRunning { supervision.budgetStops(foreground: false) }
        }
        appStateChanged()
        // What it was woken for: watchOS hands a watch app a task for the phone's content.
        let event = JSONValue.object(["event": .string("woken"), "for": .string(key)])
        for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
        rearmSupervision()
    }
}
