import Foundation
@_spi(RunWayPair) import KeyValueObserving
import Testing

/// `observe(_:options:changeHandler:)`: the `.initial` call, `.new` and `.old`, a call only when the value
/// differs, and never a call after `invalidate()` or the token's release.
@Suite struct KeyValueObservingTests {
    final class Battery: NSObject, @unchecked Sendable {
        var level = 0 {
            didSet { KeyValueObservingCenter.valuesMayHaveChanged(of: self) }
        }
    }

    @Test func initialNewAndOldThenOnlyChanges() {
        let battery = Battery()
        var changes: [String] = []
        let observation = battery.observe(\.level, options: [.initial, .new, .old]) { _, change in
            changes.append("\(change.oldValue.map(String.init) ?? "-")>\(change.newValue.map(String.init) ?? "-")")
        }
        battery.level = 40
        battery.level = 40
        battery.level = 35
        #expect(changes == ["->0", "0>40", "40>35"])
        observation.invalidate()
        battery.level = 10
        #expect(changes.count == 3)
    }

    @Test func withoutOptionsNoValuesAndNoInitialCall() {
        let battery = Battery()
        var calls = 0
        var values: [Int?] = []
        let observation = battery.observe(\.level) { _, change in
            calls += 1
            values.append(change.newValue)
        }
        battery.level = 1
        #expect(calls == 1 && values == [nil])
        _ = observation
    }

    @Test func aReleasedTokenObservesNoMore() {
        let battery = Battery()
        var calls = 0
        var observation: NSKeyValueObservation? = battery.observe(\.level, options: .new) { _, _ in calls += 1 }
        battery.level = 1
        observation = nil
        battery.level = 2
        #expect(calls == 1 && observation == nil)
    }

    @Test func aHandlerMayInvalidateItsOwnObservation() {
        let battery = Battery()
        var calls = 0
        var observation: NSKeyValueObservation?
        observation = battery.observe(\.level, options: .new) { _, _ in
            calls += 1
            observation?.invalidate()
        }
        battery.level = 1
        battery.level = 2
        #expect(calls == 1)
    }

    @Test func invalidateWaitsForACallInProgressOnAnotherThread() {
        let battery = Battery()
        let entered = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var calls = 0
        let observation = battery.observe(\.level, options: .new) { _, _ in
            entered.signal()
            usleep(50_000)
            lock.withLock { calls += 1 }
        }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            battery.level = 1
            done.signal()
        }
        entered.wait()
        observation.invalidate()
        // The call that was running has finished when invalidate returns; none follows.
        #expect(lock.withLock { calls } == 1)
        done.wait()
        battery.level = 2
        #expect(lock.withLock { calls } == 1)
    }
}
