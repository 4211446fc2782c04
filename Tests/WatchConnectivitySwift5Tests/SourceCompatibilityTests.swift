import Foundation
import Testing
import WatchConnectivity

/// Code written for iOS compiles unchanged against this WatchConnectivity (this target in Swift 5 mode,
/// WatchConnectivitySwift6Tests the same files in Swift 6 mode), and behaves as Apple's API says in a
/// process that is not an app on a simulated device: activation completes with an error, a transfer
/// that cannot be queued finishes with one, and the errors are Apple's (`WCErrorDomain`, codes 70xx).
@Suite(.serialized) struct SourceCompatibilityTests {
    /// Waits for `condition` on the delegate's queue (a deadline, not a measurement).
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test func anIOSDelegateActivatesAndHearsWhyNot() {
        let manager = WaterLogSessionManager()
        manager.start()
        #expect(eventually { manager.lastActivation != nil })
        #expect(manager.lastActivation?.state == .notActivated)
        let error = manager.lastActivation?.error as? WCError
        #expect(error?.code == .sessionNotSupported)
        #expect((manager.lastActivation?.error as NSError?)?.domain == WCErrorDomain)
        #expect((manager.lastActivation?.error as NSError?)?.code == 7002)
        #expect(WCSession.default.activationState == .notActivated)
        #expect(!WCSession.default.isReachable)
        #expect(!manager.phoneHasTheApp)
    }

    @Test func aTransferThatCannotBeQueuedFinishesWithTheError() {
        let manager = WaterLogSessionManager()
        WCSession.default.delegate = manager
        struct NotAPropertyList {}
        WCSession.default.transferUserInfo(["bad": NotAPropertyList()])
        #expect(eventually { manager.finished.count == 1 })
        #expect((manager.finished.first?.error as? WCError)?.code == .payloadUnsupportedTypes)
        #expect(manager.finished.first?.transfer.isTransferring == false)
        let transfer = WCSession.default.transferUserInfo(["ml": 250, "at": Date()])
        #expect(eventually { manager.finished.count == 2 })
        #expect((manager.finished.last?.error as? WCError)?.code == .sessionNotActivated)
        #expect(transfer.userInfo["ml"] as? Int == 250)
        #expect(WCSession.default.outstandingUserInfoTransfers.isEmpty)
        #expect(throws: WCError.self) { try WCSession.default.updateApplicationContext(["total": 1]) }
    }

    @Test func errorsAreApplesToo() {
        let error = WCError(.payloadTooLarge)
        #expect(error.errorCode == 7009)
        #expect(WCError.errorDomain == "WCErrorDomain")
        #expect((error as NSError).domain == WCErrorDomain)
        #expect(WCError.notReachable == .notReachable)
        #expect(WCSessionActivationState.activated.rawValue == 2)
        var policy = MessageRetryPolicy()
        #expect(policy.action(for: WCError(.notReachable)) == .queueAsUserInfo)
        #expect(policy.action(for: WCError(.messageReplyTimedOut)) == .retryLater(seconds: 4))
        #expect(policy.action(for: WCError(.payloadTooLarge)) == .splitPayload)
        let phone = PhoneOnlySessionDelegate()
        WCSession.default.delegate = phone
        #expect(WCSession.default.delegate === phone)
    }
}
