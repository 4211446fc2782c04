import ConnectivityTesting
import Posix
import Storage
import Testing
import PropertyLists
@testable import Connectivity

/// The rest of WatchConnectivity's contract, driven over the in-memory link with a manual clock:
/// both directions, device state, reachability, cancel, didFinish replay, contexts, messages.
@Suite struct SessionContractTests {
    @Test func transfersFlowFromThePhoneToTheWatchToo() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        _ = try harness.phone.transferUserInfo(batch: harness.numbered(0..<10))
        try harness.drive()
        #expect(harness.watchDelegate.receivedNumbers == Array(0..<10))
        #expect(try harness.phone.outstandingUserInfoTransferCount() == 0)
        #expect(harness.phoneDelegate.finished.map(\.seq) == Array(1...10))
    }

    @Test func aTransferIsDeliveredOnlyToAnActivatedSession() throws {
        let harness = try PairHarness()
        try harness.watch.activate()
        try harness.drive()
        try harness.watch.transferUserInfo(["n": .integer(1)])
        // The phone's app has not activated: no link can be established, nothing is delivered.
        #expect(throws: WCError.self) { try MemoryLink.connect(harness.watch, harness.phone, loop: harness.loop) }
        #expect(harness.phone.validate(try harness.watch.makeHandshake())?.code == .sessionNotActivated)
        #expect(harness.phoneDelegate.received.isEmpty)
        try harness.phone.activate()
        try harness.drive()
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == [1])
    }

    @Test func thePhoneKnowsWhetherTheWatchAppIsInstalledAndCannotSendWithoutIt() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        #expect(!harness.phone.isWatchAppInstalled)  // nothing heard from the watch yet
        do {
            try harness.phone.transferUserInfo(["a": .integer(1)])
            Issue.record("sent to a watch app never seen")
        } catch let error as WCError {
            #expect(error.code == .watchAppNotInstalled)
        }
        try harness.connect()
        #expect(harness.phone.isWatchAppInstalled)
        try harness.watch.setLocalAppState(installed: false, active: false)
        try harness.drive()
        #expect(!harness.phone.isWatchAppInstalled)
        #expect(harness.phoneDelegate.watchStateChanges >= 2)
        #expect(throws: WCError.self) { try harness.phone.updateApplicationContext(["a": .integer(1)]) }
    }

    @Test func reachabilityFollowsTheLinkAndTheWatchAppsForeground() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        #expect(!harness.phone.isReachable && !harness.watch.isReachable)
        try harness.connect()
        #expect(harness.phone.isReachable && harness.watch.isReachable)
        let before = harness.phoneDelegate.reachabilityChanges
        let watchBefore = harness.watchDelegate.reachabilityChanges
        try harness.watch.setLocalAppState(installed: true, active: false)
        try harness.drive()
        #expect(!harness.phone.isReachable)
        #expect(!harness.watch.isReachable)  // watchOS: only while the watch app is in the foreground
        #expect(harness.phoneDelegate.reachabilityChanges == before + 1)
        #expect(harness.watchDelegate.reachabilityChanges == watchBefore + 1, "the watch's isReachable changed: its delegate is told")
        try harness.watch.setLocalAppState(installed: true, active: true)
        try harness.drive()
        #expect(harness.phone.isReachable)
        harness.link!.closeBoth(reason: "out of range")
        #expect(!harness.phone.isReachable && !harness.watch.isReachable)
        #expect(harness.phoneDelegate.reachabilityChanges == before + 3)
    }

    @Test func cancelStopsAQueuedTransferButNotADeliveredOne() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let transfers = try harness.watch.transferUserInfo(batch: harness.numbered(0..<3))
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: transfers[1].seq) == .cancelled)
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: transfers[1].seq) == .alreadyCancelled)
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == [0, 2])
        #expect(try !harness.watch.cancelUserInfoTransfer(seq: transfers[0].seq))
        // Each refusal says why (runway … cancel tells them apart).
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: transfers[0].seq) == .delivered)
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: 999) == .unknown)
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: 0) == .unknown)
        // A cancellation is remembered after the acknowledgement passed it and it was reported.
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: transfers[1].seq) == .alreadyCancelled)
        #expect(harness.watchDelegate.finished.map(\.seq) == [1, 3])
    }

    @Test func aTransferOnTheWireCannotBeCancelled() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let transfer = try harness.watch.transferUserInfo(["n": .integer(1)])
        harness.link = try MemoryLink.connect(harness.watch, harness.phone, loop: harness.loop)
        #expect(try harness.watch.cancelUserInfoTransferTelling(seq: transfer.seq) == .onTheWire)  // sent, not yet acknowledged
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == [1])
        #expect(harness.watchDelegate.finished.map(\.seq) == [transfer.seq])
    }

    /// Apple: isTransferring is true for every transfer not yet delivered, queued ones included; the
    /// simulator's own "on the wire" is what the cancel rule uses.
    @Test func isTransferringUntilDeliveredQueuedOnesIncluded() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let transfer = try harness.watch.transferUserInfo(["n": .integer(1)])
        #expect(try harness.watch.transferState(seq: transfer.seq) == (true, true))
        #expect(!harness.watch.isOnTheWire(transfer.seq))
        harness.link = try MemoryLink.connect(harness.watch, harness.phone, loop: harness.loop)
        #expect(try harness.watch.transferState(seq: transfer.seq) == (true, true))
        #expect(harness.watch.isOnTheWire(transfer.seq))
        try harness.drive()
        #expect(try harness.watch.transferState(seq: transfer.seq) == (false, false))
        #expect(!harness.watch.isOnTheWire(transfer.seq))
    }

    @Test func didFinishIsReplayedAfterARestartIfTheAppWasNotTold() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<4))
        // The acknowledgement is committed but the process dies before telling the app: simulate by
        // committing the outbox delete directly, then starting a fresh session on the same store.
        try Outbox(database: harness.watchDB).acknowledge(upTo: 4)
        let restarted = Session(role: .watch, database: harness.watchDB, loop: harness.loop, transport: nil, logger: .silent)
        let delegate = RecordingDelegate()
        restarted.handler = delegate
        try restarted.activate()
        try harness.drive()
        #expect(delegate.finished.map(\.seq) == [1, 2, 3, 4])
        #expect(delegate.finished.allSatisfy { $0.replayed })
        // Told once: a second restart replays nothing.
        let again = Session(role: .watch, database: harness.watchDB, loop: harness.loop, transport: nil, logger: .silent)
        let second = RecordingDelegate()
        again.handler = second
        try again.activate()
        try harness.drive()
        #expect(second.finished.isEmpty)
    }

    @Test func finishedWhileApartIsReportedWhenTheLinkResumes() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<5))
        try harness.connect()
        harness.link!.b.dropsOutgoing = true  // the phone stores them but its acknowledgements are lost
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(5..<8))
        try harness.drive()
        harness.link!.closeBoth(reason: "watch went away")
        #expect(harness.watchDelegate.finished.count == 5)
        try harness.connect()  // the handshake's resume point finishes 6...8
        #expect(harness.watchDelegate.finished.map(\.seq) == Array(1...8))
    }

    @Test func theApplicationContextIsLatestOnlyDurableAndNeverRedelivered() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        #expect(try harness.watch.updateApplicationContext(["v": .integer(1)]) == 1)
        #expect(try harness.watch.updateApplicationContext(["v": .integer(2)]) == 2)
        #expect(try harness.watch.updateApplicationContext(["v": .integer(2)]) == 2)  // identical: no new version
        try harness.connect()
        #expect(harness.phoneDelegate.contexts == [["v": .integer(2)]])  // only the latest
        #expect(harness.phone.receivedApplicationContext == ["v": .integer(2)])
        harness.link!.closeBoth(reason: "bounce")
        try harness.connect()
        #expect(harness.phoneDelegate.contexts.count == 1)  // not delivered twice
        try harness.watch.updateApplicationContext(["v": .integer(3)])
        try harness.drive()
        #expect(harness.phoneDelegate.contexts.last == ["v": .integer(3)])
        // Durable: a new session on the phone's store still has it.
        let restarted = Session(role: .phone, database: harness.phoneDB, loop: harness.loop, transport: nil, logger: .silent)
        #expect(restarted.receivedApplicationContext == ["v": .integer(3)])
        #expect(harness.watch.applicationContext == ["v": .integer(3)])
    }

    @Test func contextsOverTheLimitAreRefused() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        do {
            try harness.watch.updateApplicationContext(["blob": .data([UInt8](repeating: 1, count: 262_144))])
            Issue.record("accepted a context over 256 KiB")
        } catch let error as WCError {
            #expect(error.code == .payloadTooLarge)
        }
        try harness.watch.updateApplicationContext(["blob": .data([UInt8](repeating: 1, count: 200_000))])
    }

    // MARK: - Messages

    func send(_ message: UserInfo, from session: Session, timeout: UInt64? = nil) -> () -> Result<UserInfo, WCError>? {
        var outcome: Result<UserInfo, WCError>?
        var calls = 0
        session.sendMessage(message, timeoutMilliseconds: timeout) { result in
            calls += 1
            outcome = result
        }
        return {
            #expect(calls <= 1, "the completion ran \(calls) times")
            return outcome
        }
    }

    @Test func aMessageGetsItsReply() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        let result = send(["ping": .integer(1)], from: harness.phone)
        try harness.drive()
        #expect(try result()?.get() == ["echo": .dictionary(["ping": .integer(1)])])
    }

    @Test func aMessageToAnUnreachableCounterpartFailsWithNotReachable() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let unlinked = send(["a": .integer(1)], from: harness.watch)
        try harness.drive()
        #expect(throws: WCError(.notReachable, "the phone is not reachable (link down, or the watch app is not in the foreground)")) { try unlinked()?.get() }
        try harness.connect()
        try harness.watch.setLocalAppState(installed: true, active: false)
        try harness.drive()
        let backgrounded = send(["a": .integer(1)], from: harness.phone)
        try harness.drive()
        expectFailure(backgrounded(), .notReachable, otherwise: "no notReachable")
    }

    @Test func anUnansweredMessageTimesOutExactlyOnce() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        harness.phoneDelegate.answer = { _ in nil }
        let result = send(["a": .integer(1)], from: harness.watch, timeout: 500)
        try harness.drive()
        #expect(result() == nil)
        harness.advanceClock(byMilliseconds: 499)
        try harness.drive()
        #expect(result() == nil)
        harness.advanceClock(byMilliseconds: 2)
        try harness.drive()
        expectFailure(result(), .messageReplyTimedOut, otherwise: "no time-out")
    }

    @Test func aLinkThatDropsFailsThePendingMessage() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        harness.phoneDelegate.answer = { _ in nil }
        let result = send(["a": .integer(1)], from: harness.watch)
        try harness.drive()
        harness.link!.closeBoth(reason: "out of range")
        expectFailure(result(), .notReachable, otherwise: "not failed")
    }

    @Test func oversizedMessagesAndRepliesFail() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        let big = send(["blob": .data([UInt8](repeating: 0, count: 70_000))], from: harness.watch)
        try harness.drive()
        expectFailure(big(), .payloadTooLarge, otherwise: "accepted")
        harness.phoneDelegate.answer = { _ in ["blob": .data([UInt8](repeating: 0, count: 70_000))] }
        let bigReply = send(["a": .integer(1)], from: harness.watch)
        try harness.drive()
        expectFailure(bigReply(), .messageReplyFailed, otherwise: "accepted")
    }

    @Test func messagesBeforeActivationFail() throws {
        let harness = try PairHarness()
        let result = send(["a": .integer(1)], from: harness.watch)
        try harness.drive()
        expectFailure(result(), .sessionNotActivated, otherwise: "sent")
    }
}
