import Foundation
import Testing

@testable import WatchConnectivity

/// Key-value observing of what the session hands the app: a file transfer's `progress` tells its
/// observers as its bytes move, is finished or cancelled — never after `invalidate()`; the session's
/// state gives the `.initial` value and a call only when a value changed.
@Suite(.serialized) struct SessionObservingTests {
    func transfer(bytes: Int64) -> WCSessionFileTransfer {
        WCSessionFileTransfer(
            session: nil, identifier: 1, file: WCSessionFile(fileURL: URL(fileURLWithPath: "/tmp/log.csv"), metadata: nil), totalBytes: bytes)
    }

    @Test func aTransfersProgressIsObservable() {
        let transfer = transfer(bytes: 200)
        var fractions: [Double] = []
        var finished: [Bool] = []
        let fraction = transfer.progress.observe(\.fractionCompleted, options: [.initial, .new]) { _, change in
            fractions.append(change.newValue ?? -1)
        }
        let done = transfer.progress.observe(\.isFinished, options: [.old, .new]) { _, change in finished.append(change.newValue ?? false) }
        transfer.progress.completedUnitCount = 50
        transfer.progress.completedUnitCount = 50
        transfer.progress.completedUnitCount = 200
        #expect(fractions == [0, 0.25, 1])
        #expect(finished == [true])
        fraction.invalidate()
        transfer.progress.completedUnitCount = 100
        #expect(fractions.count == 3, "no call after invalidate")
        _ = done
    }

    @Test func aCancelledTransfersProgressSaysSo() {
        let transfer = transfer(bytes: 10)
        var cancelled: [Bool] = []
        let observation = transfer.progress.observe(\.isCancelled, options: .new) { progress, _ in cancelled.append(progress.isCancelled) }
        transfer.progress.cancel()
        #expect(cancelled == [true])
        _ = observation
    }

    @Test func theSessionsStateGivesItsInitialValueAndOnlyChanges() {
        var states: [WCSessionActivationState] = []
        var reachable: [Bool] = []
        let state = WCSession.default.observe(\.activationState, options: [.initial, .new]) { _, change in
            if let value = change.newValue { states.append(value) }
        }
        let reach = WCSession.default.observe(\.isReachable, options: .new) { _, change in reachable.append(change.newValue ?? true) }
        WCSession.default.stateMayHaveChanged()
        #expect(states == [.notActivated], "the initial value, then nothing: nothing changed")
        #expect(reachable.isEmpty)
        _ = (state, reach)
    }
}
