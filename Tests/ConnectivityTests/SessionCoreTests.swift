@testable import Connectivity
import Testing
import PropertyLists

/// The session's decisions, pure (`SessionCore`): events in, actions out — no loop, socket or database.
@Suite struct SessionCoreTests {
    static let pairing = Pairing(pairingID: "P1", phoneDeviceID: "phone-1", watchDeviceID: "watch-1", phoneLinkSocket: "/x", pairedAt: 0)

    /// An activated core with the given apps' states, not linked.
    static func activated(
        _ role: DeviceRole, local: AppPresence = .init(installed: true, active: true),
        counterpart: AppPresence = .init(installed: true, active: true)
    ) -> SessionCore {
        var core = SessionCore(role: role, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1 << 20))
        _ = core.handle(.activationRequested)
        _ = core.handle(
            .deviceStateLoaded(
                LoadedDeviceState(
                    deviceID: role == .phone ? "phone-1" : "watch-1", pairing: pairing, local: local, counterpart: counterpart,
                    counterpartVersion: "1.4")))
        _ = core.handle(.activationSucceeded)
        return core
    }

    static func handshake(from role: DeviceRole, installed: Bool = true, active: Bool = true, pairingID: String = "P1") -> Handshake {
        Handshake(
            role: role, deviceID: role == .phone ? "phone-1" : "watch-1", pairingID: pairingID, appVersion: "1.4", resumeSeq: 0,
            appInstalled: installed, appActive: active)
    }

    /// Brings the link up as the shell does, and returns what establishing it asked for.
    static func link(_ core: inout SessionCore, peer: Handshake) -> [String] {
        _ = core.handle(.linkOpening(replacing: false))
        _ = core.handle(.linkUp(peer))
        return describe(core.handle(.linkEstablished(receiveCursors: Lanes(repeating: 0))))
    }

    /// A short name per action, for readable expectations.
    static func describe(_ actions: [SessionAction]) -> [String] {
        actions.map { action in
            switch action {
            case .completeActivationSoon: "completeActivationSoon"
            case let .tell(callback):
                switch callback {
                case let .activationDidComplete(state, error): "tell activationDidComplete \(state)\(error == nil ? "" : " error")"
                case .didBecomeInactive: "tell didBecomeInactive"
                case .didDeactivate: "tell didDeactivate"
                case .reachabilityDidChange: "tell reachabilityDidChange"
                case .watchStateDidChange: "tell watchStateDidChange"
                case .didReceiveMessage(_, nil): "tell didReceiveMessageWithoutReply"
                case .didReceiveMessageData(_, nil): "tell didReceiveMessageDataWithoutReply"
                case .didCommitReceivedTransfers: "tell didCommitReceivedTransfers"
                case .didRollBackReceivedTransfers: "tell didRollBackReceivedTransfers"
                default: "tell \(callback)"
                }
            case let .log(line): "log \(line.event)"
            case let .send(bytes): "send \(Frame.type(of: bytes).map { "\($0)" } ?? "?")"
            case let .closeLink(error, reason): "closeLink " + (error.map { "\($0.code.rawValue) " } ?? "") + reason
            case let .protocolViolation(why): "protocolViolation \(why)"
            case .dropLink: "dropLink"
            case .announceLink: "announceLink"
            case .saveCounterpartState: "saveCounterpartState"
            case .sendApplicationContextIfNeeded: "sendApplicationContextIfNeeded"
            case .pump: "pump"
            case let .reportFinishedTransfers(replayed): "reportFinishedTransfers\(replayed ? " replayed" : "")"
            case let .releaseOutbox(upTo, _): "releaseOutbox \(upTo)"
            case let .then(event): "then \(eventName(event))"
            case let .later(event): "later \(eventName(event))"
            case let .messageAccepted(id, _, _, _): "messageAccepted \(id)"
            case let .messageRefused(error, _): "messageRefused \(error.code.rawValue)"
            case let .completeMessage(id, .success): "completeMessage \(id) success"
            case let .completeMessage(id, .failure(error)): "completeMessage \(id) \(error.code.rawValue)"
            case let .deliverMessage(id, _, replyExpected): replyExpected ? "deliverMessage \(id)" : "deliverMessage \(id) no reply"
            case .wakeCounterpart: "wakeCounterpart"
            case .restartLinkIfHeld: "restartLinkIfHeld"
            case let .acknowledge(upTo, _): "acknowledge \(upTo)"
            case let .crashPoint(name): "crashPoint \(name)"
            }
        }
    }

    static func eventName(_ event: SessionEvent) -> String {
        switch event {
        case let .messagesFailed(error): "messagesFailed \(error.code.rawValue)"
        case .messagesAwaitingLinkMaySend: "messagesAwaitingLinkMaySend"
        case .deactivationFinished: "deactivationFinished"
        case .deactivationSettled: "deactivationSettled"
        case .switchSettled: "switchSettled"
        default: "\(event)"
        }
    }

    // MARK: - Activation

    @Test func activationIsRequestedOnceAndAFailureMayBeRetried() {
        var core = SessionCore(role: .watch, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1024))
        #expect(Self.describe(core.handle(.activationRequested)) == ["completeActivationSoon"])
        #expect(core.handle(.activationRequested).isEmpty, "a second activate() while the first runs")
        struct Unreadable: Error {}
        #expect(
            Self.describe(core.handle(.activationFailed(Unreadable())))
                == ["log session.activation-failed", "tell activationDidComplete notActivated error"])
        #expect(core.activationState == .notActivated)
        #expect(Self.describe(core.handle(.activationRequested)) == ["completeActivationSoon"], "after a failure, activate() tries again")
        #expect(core.handle(.activationSucceeded).count == 3)
        #expect(core.activationState == .activated)
    }

    /// Issue 49: an app needs no session to launch, and HealthKit's traffic rides the link all the same.
    /// The system activates the session for it; the app, which did not, hears nothing and cannot send
    /// until it activates — then it hears activation as Apple's app does (`activationDidComplete`, then
    /// what finished meanwhile), and the link starts again for what it was not given.
    @Test func aSystemActivationHoldsTheAppUntilItActivatesThenItJoins() {
        var core = SessionCore(role: .phone, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1024))
        #expect(Self.describe(core.handle(.systemActivationRequested)) == ["completeActivationSoon"])
        #expect(core.handle(.systemActivationRequested).isEmpty, "once")
        _ = core.handle(
            .deviceStateLoaded(
                LoadedDeviceState(
                    deviceID: "phone-1", pairing: Self.pairing, local: .init(installed: true, active: true),
                    counterpart: .init(installed: true, active: true), counterpartVersion: "1.4")))
        _ = core.handle(.activationAwaitsFirstLink)
        #expect(!core.announcementAwaitsLink, "nothing to announce, nothing to wait for")
        #expect(Self.describe(core.handle(.activationSucceeded)) == ["log session.activated"], "the app is told nothing")
        #expect(core.activationState == .activated && core.appHeld)
        #expect(throws: WCError.self) { try core.requireActivated() }
        #expect(throws: Never.self) { try core.requireServiceActivated() }
        // A message from the watch: answered at once, not delivered.
        #expect(
            Self.describe(core.handle(.messageFrameReceived(.message, id: 7, body: PropertyListCodec.encode(["k": .string("v")])))) == ["send messageError"])
        // The app activates: it joins.
        #expect(
            Self.describe(core.handle(.activationRequested))
                == ["log session.app-joined", "restartLinkIfHeld", "tell activationDidComplete activated", "reportFinishedTransfers replayed"])
        #expect(!core.appHeld)
        #expect(throws: Never.self) { try core.requireActivated() }
        #expect(core.handle(.activationRequested).isEmpty, "a second activate() changes nothing")
    }

    /// The app activating while the system's activation is still completing hears it as its own.
    @Test func anAppActivatingDuringTheSystemsActivationHearsItAsItsOwn() {
        var core = SessionCore(role: .watch, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1024))
        _ = core.handle(.systemActivationRequested)
        #expect(core.handle(.activationRequested).isEmpty, "activation is under way")
        #expect(!core.appHeld)
        #expect(Self.describe(core.handle(.activationSucceeded)).contains("tell activationDidComplete activated"))
    }

    @Test func deactivationClosesTheLinkThenFailsTheMessagesThenSettles() {
        var core = Self.activated(.watch)
        #expect(Self.describe(core.handle(.deactivationRequested)) == ["closeLink session deactivated", "then deactivationFinished"])
        #expect(
            Self.describe(core.handle(.deactivationFinished)) == ["dropLink", "then messagesFailed 7007", "then deactivationSettled"])
        #expect(core.activationState == .activated, "still activated while the messages' completions run")
        _ = core.handle(.deactivationSettled)
        #expect(core.activationState == .notActivated)
    }

    // MARK: - Reachability

    @Test func theWatchReachesThePhoneOnlyOverALinkAndFromTheForeground() {
        var core = Self.activated(.watch)
        #expect(!core.isReachable, "no link")
        let established = Self.link(&core, peer: Self.handshake(from: .phone))
        #expect(core.isReachable)
        #expect(established.contains("tell reachabilityDidChange"))
        #expect(
            Array(established.suffix(3)) == ["sendApplicationContextIfNeeded", "then messagesAwaitingLinkMaySend", "pump"],
            "after the link is up: the context, what waited for the link, the outbox")
        let background = Self.describe(core.handle(.localAppStateChanged(AppPresence(installed: true, active: false))))
        #expect(!core.isReachable, "the watch app went to the background")
        #expect(background == ["log app.state", "send appState", "tell reachabilityDidChange"], "the watch's own delegate hears it")
    }

    @Test func thePhoneReachesTheWatchOnlyWhileTheWatchAppIsActive() {
        var core = Self.activated(.phone, counterpart: .init(installed: true, active: false))
        let established = Self.link(&core, peer: Self.handshake(from: .watch, active: false))
        #expect(!core.isReachable)
        #expect(!established.contains("tell reachabilityDidChange"), "nothing changed: it was not reachable and is not")
        let foreground = Self.describe(core.handle(.counterpartAppStateReported(installed: nil, active: true)))
        #expect(core.isReachable)
        #expect(
            foreground == ["log peer.app-state", "saveCounterpartState", "tell reachabilityDidChange", "pump"],
            "the watch app's foreground is reachability's, not the watch state's (isPaired, isWatchAppInstalled, isComplicationEnabled, watchDirectoryURL)")
        let again = Self.describe(core.handle(.counterpartAppStateReported(installed: true, active: true)))
        #expect(again == ["log peer.app-state", "saveCounterpartState", "pump"], "no change: nobody is told")
    }

    @Test func aClosedLinkFailsTheMessagesAndTellsReachabilityOnlyIfItWasReachable() {
        var core = Self.activated(.phone)
        _ = Self.link(&core, peer: Self.handshake(from: .watch))
        #expect(core.isReachable)
        let closed = Self.describe(core.handle(.linkClosed(reason: "eof")))
        #expect(closed == ["dropLink", "then messagesFailed 7007", "log link.closed", "tell reachabilityDidChange"])
        #expect(!core.isReachable && !core.isLinked)
        var unreachable = Self.activated(.phone, counterpart: .init(installed: true, active: false))
        _ = Self.link(&unreachable, peer: Self.handshake(from: .watch, active: false))
        #expect(!Self.describe(unreachable.handle(.linkClosed(reason: "eof"))).contains("tell reachabilityDidChange"))
    }

    @Test func thePhoneSendsNothingToAWatchWithoutTheApp() {
        var core = Self.activated(.phone, counterpart: .init(installed: false, active: false))
        _ = Self.link(&core, peer: Self.handshake(from: .watch, installed: false, active: false))
        #expect(!core.maySend)
        #expect(throws: WCError.self) { try core.requireCounterpartApp() }
        _ = core.handle(.counterpartAppStateReported(installed: true, active: false))
        #expect(core.maySend && core.lanes.userInfo.mayHaveMore, "installed: the held transfers may go")
    }

    @Test func theAppsStateIsSentOnlyWhileLinked() {
        var core = Self.activated(.watch)
        #expect(Self.describe(core.handle(.localAppStateChanged(.init(installed: true, active: false)))) == ["log app.state"])
        _ = Self.link(&core, peer: Self.handshake(from: .phone))
        #expect(
            Self.describe(core.handle(.localAppStateChanged(.init(installed: true, active: true))))
                == ["log app.state", "send appState", "tell reachabilityDidChange"])
        var phone = Self.activated(.phone)
        _ = Self.link(&phone, peer: Self.handshake(from: .watch))
        #expect(
            Self.describe(phone.handle(.localAppStateChanged(.init(installed: true, active: false)))) == ["log app.state", "send appState"],
            "the phone's reachability does not depend on its own app")
    }

    @Test func aChangeMadeWhileTheHandshakeWasOnItsWayIsSentOnceTheLinkIsUp() {
        var core = Self.activated(.watch)
        core.announcedLocal = core.local  // the hello is built and sent
        _ = core.handle(.localAppStateChanged(.init(installed: true, active: true, complicationEnabled: true)))  // not linked: not sent
        let linked = Self.link(&core, peer: Self.handshake(from: .phone))
        #expect(linked.contains("send appState"), "the hello said the complication was off: told now")
        var unchanged = Self.activated(.watch)
        unchanged.announcedLocal = unchanged.local
        #expect(!Self.link(&unchanged, peer: Self.handshake(from: .phone)).contains("send appState"), "nothing changed: nothing extra")
    }

    @Test func theWatchLearnsThePhoneAppIsGoneOrTheIPhoneLockedFromItsRefusals() {
        var core = Self.activated(.watch)
        #expect((try? core.requireCounterpartApp()) != nil, "taken as installed until told")
        let gone = Self.describe(core.handle(.refusedByCounterpart(WCError(.companionAppNotInstalled, "deleted"))))
        #expect(gone.contains("tell watchStateDidChange") && !core.counterpart.installed)
        #expect(throws: WCError(.companionAppNotInstalled, "the RunWay app is not installed on the iPhone (runway phone app install)")) {
            try core.requireCounterpartApp()
        }
        #expect(Self.describe(core.handle(.refusedByCounterpart(WCError(.companionAppNotInstalled, "again")))).isEmpty, "told once")
        let back = Self.describe(core.handle(.counterpartStateOutsideLink(installed: true, active: false)))
        #expect(back.contains("tell watchStateDidChange") && core.counterpart.installed)
        #expect(core.handle(.counterpartStateOutsideLink(installed: true, active: false)).isEmpty, "nothing new: nothing saved or told")
        let locked = Self.describe(core.handle(.refusedByCounterpart(WCError(.notReachable, "locked", lockedAfterReboot: true))))
        #expect(locked.contains("tell reachabilityDidChange") && core.counterpartNeedsUnlock)
        let linked = Self.link(&core, peer: Self.handshake(from: .phone))
        #expect(linked.contains("tell reachabilityDidChange") && !core.counterpartNeedsUnlock, "a link is the unlock")
        // Issue 50: so is the phone's system answering again (its app not running): reachable at once.
        _ = core.handle(.linkClosed(reason: "the phone restarted"))
        _ = core.handle(.refusedByCounterpart(WCError(.notReachable, "locked", lockedAfterReboot: true)))
        #expect(!core.isReachable && core.counterpartNeedsUnlock)
        let answered = Self.describe(core.handle(.counterpartStateOutsideLink(installed: true, active: false)))
        #expect(!core.counterpartNeedsUnlock && core.isReachable, "the iPhone in range after its first unlock")
        #expect(answered.contains("log peer.unlocked") && answered.contains("tell reachabilityDidChange"), "\(answered)")
    }

    /// Issue 50: an application context the counterpart's handshake said waits is content pending until
    /// it arrives (the shell clears it when the context frame is read: `SessionContext.swift`).
    @Test func aContextTheHandshakeSaysWaitsIsContentPending() {
        var core = Self.activated(.watch)
        var welcome = Self.handshake(from: .phone)
        welcome.pendingContext = true
        _ = Self.link(&core, peer: welcome)
        #expect(core.contextPending && core.contentPending == 0)
        var plain = Self.activated(.watch)
        _ = Self.link(&plain, peer: Self.handshake(from: .phone))
        #expect(!plain.contextPending)
        #expect(Handshake(decodingOrNil: welcome.encoded)?.pendingContext == true, "it crosses the wire")
        #expect(Handshake(decodingOrNil: Self.handshake(from: .phone).encoded)?.pendingContext == false)
    }

    @Test func contentIsPendingUntilWhatTheCounterpartSaidItHadArrives() {
        var core = Self.activated(.phone)
        var hello = Self.handshake(from: .watch)
        hello.pendingTransfers = 3
        _ = Self.link(&core, peer: hello)
        #expect(core.contentPending == 3)
        var transaction = ReceiveTransaction(Self.transfers(1...2), after: 0)
        _ = transaction.record(1, .accepted)
        _ = transaction.record(2, .accepted)
        _ = core.handle(.batchCommitted(transaction, milliseconds: 1))
        #expect(core.contentPending == 1)
        _ = core.handle(.contentArrived(count: 5))
        #expect(core.contentPending == 0, "never below nothing")
    }

    @Test func anAcknowledgementReleasesOnlyWhatWasSent() {
        var core = Self.activated(.watch)
        _ = Self.link(&core, peer: Self.handshake(from: .phone))
        for seq in Int64(1)...3 { _ = core.window.take(seq: seq, bytes: 10) }
        // Issue 51: an acknowledgement of what was never sent is a forged frame: the link closes, nothing is released.
        #expect(
            Self.describe(core.handle(.acknowledgementReceived(upTo: 99)))
                == ["protocolViolation ack acknowledgement up to 99, but only up to 3 was sent on this link"])
        #expect(
            Self.describe(core.handle(.acknowledgementReceived(upTo: 3)))
                == ["crashPoint send.after-ack-received", "releaseOutbox 3", "reportFinishedTransfers", "pump"])
        #expect(core.handle(.acknowledgementReceived(upTo: 2)).isEmpty, "an old acknowledgement releases nothing")
        // The rule before (`--unsafe-trust-counterpart`) capped it at the last sent.
        var trusting = Self.activated(.watch)
        trusting.trustsCounterpart = true
        _ = Self.link(&trusting, peer: Self.handshake(from: .phone))
        for seq in Int64(1)...3 { _ = trusting.window.take(seq: seq, bytes: 10) }
        #expect(Self.describe(trusting.handle(.acknowledgementReceived(upTo: 99))).contains("releaseOutbox 3"))
    }

    // MARK: - The pairing

    @Test func aHandshakeIsCheckedAgainstThePairing() {
        var core = Self.activated(.phone)
        #expect(core.validate(Self.handshake(from: .watch)).verdict == nil)
        #expect(core.validate(Self.handshake(from: .phone)).verdict?.code == .deviceNotPaired, "the wrong role")
        #expect(core.validate(Self.handshake(from: .watch, pairingID: "P2")).verdict?.code == .deviceNotPaired, "another pairing")
        var unpaired = SessionCore(role: .phone, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1024))
        #expect(unpaired.validate(Self.handshake(from: .watch)).verdict?.code == .sessionNotActivated)
    }

    @Test func aSwitchedWatchMakesTheSessionInactiveThenNotActivated() {
        var core = Self.activated(.phone)
        var switched = Self.pairing
        switched.pairingID = "P2"
        switched.watchDeviceID = "watch-2"
        _ = core.handle(.pairingReloaded(switched, recordedCounterpartInstalled: false))
        #expect(!core.counterpart.installed, "the new pairing brings what was recorded of its watch app")
        let (verdict, actions) = core.validate(Self.handshake(from: .watch, pairingID: "P2"))
        #expect(verdict?.code == .sessionInactive)
        #expect(core.activationState == .inactive)
        #expect(
            Self.describe(actions) == [
                "log session.watch-switched", "closeLink paired device switched", "then messagesFailed 7016", "tell didBecomeInactive",
                "later switchSettled",
            ])
        #expect(Self.describe(core.handle(.switchSettled)) == ["tell didDeactivate"])
        #expect(core.activationState == .notActivated)
        #expect(Self.describe(core.handle(.activationRequested)) == ["completeActivationSoon"], "the app must activate again")
    }

    @Test func switchWatchGoesInactiveAndRefusesNewSendsUntilActivatedAgain() {
        var core = Self.activated(.phone)
        #expect(
            Self.describe(core.handle(.watchSwitchBegan(from: "watch-1", to: "watch-2")))
                == ["log session.watch-switched", "then messagesFailed 7016", "tell didBecomeInactive"])
        #expect(core.activationState == .inactive)
        #expect(throws: WCError.self) { try core.requireActivated() }
        #expect(core.validate(Self.handshake(from: .watch)).verdict?.code == .sessionInactive, "no new link while inactive")
        #expect(Self.describe(core.handle(.switchSettled)) == ["tell didDeactivate"])
        #expect(core.activationState == .notActivated)
        #expect(Self.describe(core.handle(.activationRequested)) == ["completeActivationSoon"], "the app must activate again")
    }

    // MARK: - Messages

    @Test func aMessageIsAnsweredExactlyOnce() {
        var core = Self.activated(.phone)
        _ = Self.link(&core, peer: Self.handshake(from: .watch))
        let sent = Self.describe(
            core.handle(
                .messageSendRequested(
                    .dictionary(["q": .integer(1)]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false, completion: { _ in })))
        #expect(sent == ["messageAccepted 1", "send message"])
        let reply = PropertyListCodec.encode(["a": .integer(2)])
        #expect(Self.describe(core.handle(.messageFrameReceived(.messageReply, id: 1, body: reply))) == ["completeMessage 1 success"])
        #expect(
            Self.describe(core.handle(.messageTimedOut(id: 1, error: WCError(.messageReplyTimedOut, "late")))) == ["log message.late-reply-ignored"],
            "the time-out after the reply is ignored")
        _ = core.handle(.messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false, completion: { _ in }))
        #expect(Self.describe(core.handle(.messageTimedOut(id: 2, error: WCError(.messageReplyTimedOut, "t")))) == ["completeMessage 2 7012"])
        #expect(Self.describe(core.handle(.messageFrameReceived(.messageReply, id: 2, body: reply))) == ["log message.late-reply-ignored"])
        #expect(core.messages.pending.isEmpty)
    }

    @Test func aMessageToAnUnreachableCounterpartIsRefused() {
        var phone = Self.activated(.phone, counterpart: .init(installed: true, active: false))
        _ = Self.link(&phone, peer: Self.handshake(from: .watch, active: false))
        #expect(
            Self.describe(
                phone.handle(
                    .messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: true, completion: { _ in })))
                == [
                    "messageRefused 7007"
                ])
        var noApp = Self.activated(.phone, counterpart: .init(installed: false, active: false))
        #expect(
            Self.describe(
                noApp.handle(
                    .messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false, completion: { _ in })))
                == [
                    "messageRefused 7006"
                ])
        var background = Self.activated(.watch, local: .init(installed: true, active: false))
        #expect(
            Self.describe(
                background.handle(
                    .messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: true, completion: { _ in }))) == [
                    "messageRefused 7007"
                ],
            "a background watch app wakes nobody")
    }

    @Test func theAppsHandlerComesBackInTheActionThatSettlesIt() {
        var core = Self.activated(.phone, counterpart: .init(installed: true, active: false))
        var heard: [String] = []
        let actions = core.handle(
            .messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false) { heard.append("\($0)") })
        #expect(heard.isEmpty, "the core never calls it")
        for case let .messageRefused(error, completion) in actions { completion(.failure(error)) }
        #expect(heard.count == 1 && heard[0].contains("7007"))
    }

    @Test func aForegroundWatchMessageWaitsForTheLinkItWakes() {
        var core = Self.activated(.watch)
        let sent = Self.describe(
            core.handle(.messageSendRequested(.dictionary([:]), replyExpected: false, timeoutMilliseconds: 50, transportCanWake: true, completion: { _ in })))
        #expect(sent == ["messageAccepted 1", "log message.waking-counterpart", "wakeCounterpart"])
        #expect(core.messages.awaitingLink.count == 1, "what the next hello says")
        _ = Self.link(&core, peer: Self.handshake(from: .phone))
        #expect(Self.describe(core.handle(.messagesAwaitingLinkMaySend)) == ["send messageNoReply", "log message.sent-after-wake"])
        #expect(core.messages.awaitingLink.isEmpty && core.messages.pending == [1], "sent, still waiting for its delivery")
        #expect(Self.describe(core.handle(.messageFrameReceived(.messageDelivered, id: 1, body: []))) == ["completeMessage 1 success"])
    }

    @Test func aFailedWakeFailsOnlyTheMessagesWaitingForTheLink() {
        var core = Self.activated(.watch)
        _ = core.handle(.messageSendRequested(.dictionary([:]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: true, completion: { _ in }))
        let failed = Self.describe(core.handle(.linkAttemptFailed(WCError(.notReachable, "nobody listens"))))
        #expect(failed == ["log message.wake-failed", "completeMessage 1 7007"])
        #expect(core.handle(.linkAttemptFailed(WCError(.notReachable, "again"))).isEmpty)
    }

    @Test func anUndecodableMessageIsAnsweredWith7010AndAMessageWithoutAReplyIsConfirmed() {
        var core = Self.activated(.phone)
        _ = Self.link(&core, peer: Self.handshake(from: .watch))
        #expect(Self.describe(core.handle(.messageFrameReceived(.message, id: 9, body: [0xFF]))) == ["send messageError"])
        let body = PropertyListCodec.encode(["q": .integer(1)])
        #expect(Self.describe(core.handle(.messageFrameReceived(.message, id: 10, body: body))) == ["deliverMessage 10"])
        #expect(
            Self.describe(core.handle(.messageFrameReceived(.messageNoReply, id: 11, body: body))) == ["deliverMessage 11 no reply"],
            "the shell confirms it (messageDelivered) once the app heard it, or answers 7014 if its delegate lacks the method")
        #expect(core.messages.receivedCount == 3)
        let big = core.replyFrame(10, .dictionary(["blob": .data(Array(repeating: 0, count: 2048))]))
        #expect(Frame.type(of: big) == .messageError, "a reply over the limit becomes an error for the sender")
    }

    @Test func aDataMessageTravelsAsItsBytesAndItsReplyIsData() {
        var core = Self.activated(.watch)
        _ = Self.link(&core, peer: Self.handshake(from: .phone))
        var sent: [[UInt8]] = []
        for action in core.handle(
            .messageSendRequested(.data([1, 2, 3]), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false, completion: { _ in }))
        {
            if case let .send(bytes) = action { sent.append(bytes) }
        }
        #expect(sent.count == 1 && Frame.type(of: sent[0]) == .messageData)
        #expect(Array(sent[0].suffix(3)) == [1, 2, 3], "the bytes as the app gave them, no property list around them")
        let replied = core.handle(.messageFrameReceived(.messageDataReply, id: 1, body: [9, 8]))
        guard case let .completeMessage(1, .success(body))? = replied.first else {
            Issue.record("the reply did not complete the message: \(Self.describe(replied))")
            return
        }
        #expect(body == .data([9, 8]))
        // Over the limit: refused before anything is sent (7009), as a dictionary would be.
        #expect(
            Self.describe(
                core.handle(
                    .messageSendRequested(
                        .data(Array(repeating: 0, count: 65_537)), replyExpected: true, timeoutMilliseconds: 50, transportCanWake: false,
                        completion: { _ in }))) == ["messageRefused 7009"])
        // Received: with a reply handler to the app; without one, delivered and then confirmed by the shell.
        #expect(Self.describe(core.handle(.messageFrameReceived(.messageData, id: 5, body: [7]))) == ["deliverMessage 5"])
        #expect(Self.describe(core.handle(.messageFrameReceived(.messageDataNoReply, id: 6, body: [7]))) == ["deliverMessage 6 no reply"])
        #expect(Frame.type(of: core.replyFrame(5, .data([1]))) == .messageDataReply)
        #expect(Frame.type(of: core.replyFrame(5, .data(Array(repeating: 0, count: 65_537)))) == .messageError, "a reply over the limit is an error")
    }

    // MARK: - The end of a receive transaction

    @Test func aCommittedBatchIsAcknowledgedAndADeferredTransferClosesTheLink() {
        var core = Self.activated(.phone)
        _ = Self.link(&core, peer: Self.handshake(from: .watch))
        var transaction = ReceiveTransaction(Self.transfers(1...3), after: 0)
        _ = transaction.record(1, .accepted)
        _ = transaction.record(2, .notNow)
        let actions = Self.describe(core.handle(.batchCommitted(transaction, milliseconds: 1)))
        #expect(
            actions == [
                "tell didCommitReceivedTransfers", "acknowledge 1", "log receive.batch", "crashPoint receive.after-ack", "log receive.deferred",
                "closeLink 7014 app deferred a transfer",
            ])
        #expect(core.lanes.userInfo.receiveCursor == 1)
    }

    @Test func aRolledBackBatchIsNotAcknowledgedAndAFullStoreSaysSo() {
        var core = Self.activated(.phone)
        struct Full: Error {}
        let transaction = ReceiveTransaction(Self.transfers(5...6), after: 4)
        let full = Self.describe(core.handle(.batchRolledBack(transaction, error: Full(), storeFull: true)))
        #expect(full == ["tell didRollBackReceivedTransfers", "log receive.commit-failed", "closeLink 7015 receive commit failed"])
        let other = Self.describe(core.handle(.batchRolledBack(transaction, error: Full(), storeFull: false)))
        #expect(other.last == "closeLink 7014 receive commit failed")
        #expect(core.failedCommits == 2 && core.lanes.userInfo.receiveCursor == 0, "nothing moved")
    }

    static func transfers(_ seqs: ClosedRange<Int64>) -> [InboundAction.Transfer] {
        seqs.map { InboundAction.Transfer(seq: $0, body: [0x01][...]) }
    }
}

extension Frame {
    /// The type of the first frame in `bytes` (tests).
    static func type(of bytes: [UInt8]) -> FrameType? {
        bytes.withUnsafeBytes { raw in (try? FrameDecoder().decode(raw))??.frame.type }
    }
}

extension Handshake {
    /// The handshake `bytes` encode, or nil.
    init?(decodingOrNil bytes: [UInt8]) {
        guard let decoded = try? Handshake(decoding: bytes) else { return nil }
        self = decoded
    }
}
