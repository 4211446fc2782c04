import Combine
import Foundation
import Testing

/// The Combine subset: `objectWillChange` before the change, `$property` with Apple's will-set timing,
/// cancellation (by `cancel()` and by release), `receive(on:)`, and the operators managers chain.
@Suite struct CombineSubsetTests {
    class Manager: ObservableObject {
        @Published var isReachable = false
        @Published var messages: [String] = []
        var notPublished = 0
    }

    final class Screen: Manager {
        @Published var title = "Water"
    }

    final class Plain: ObservableObject {}

    @Test func objectWillChangeFiresBeforeEveryPublishedSetAndIsOnePublisher() {
        let manager = Screen()
        #expect(manager.objectWillChange === manager.objectWillChange)
        var seen: [String] = []
        let will = manager.objectWillChange.sink { seen.append("will reachable=\(manager.isReachable) title=\(manager.title)") }
        let property = manager.$isReachable.sink { seen.append("$ \($0) stored=\(manager.isReachable)") }
        manager.isReachable = true
        manager.title = "Log"
        manager.notPublished = 3
        #expect(
            seen == [
                "$ false stored=false",
                "will reachable=false title=Water", "$ true stored=false",
                "will reachable=true title=Water",
            ])
        _ = (will, property)
    }

    @Test func anObjectWithoutPublishedPropertiesKeepsOnePublisher() {
        let plain = Plain()
        var count = 0
        let token = plain.objectWillChange.sink { count += 1 }
        plain.objectWillChange.send()
        #expect(count == 1)
        _ = token
    }

    @Test func cancellingOrReleasingTheTokenStopsTheValues() {
        let subject = PassthroughSubject<Int, Never>()
        var kept: [Int] = []
        var released: [Int] = []
        let token = subject.sink { kept.append($0) }
        var other: AnyCancellable? = subject.sink { released.append($0) }
        subject.send(1)
        other = nil
        subject.send(2)
        token.cancel()
        subject.send(3)
        #expect(kept == [1, 2])
        #expect(released == [1])
        #expect(other == nil)
    }

    @Test func theOperatorsManagersChain() {
        let subject = PassthroughSubject<String?, Never>()
        var out: [Int] = []
        var bag = Set<AnyCancellable>()
        subject.compactMap { $0 }.map(\.count).filter { $0 > 0 }.removeDuplicates().eraseToAnyPublisher().sink { out.append($0) }.store(in: &bag)
        for value in ["ab", nil, "", "cd", "efg", "hij", "k"] { subject.send(value) }
        #expect(out == [2, 3, 1])
    }

    @Test func currentValueSubjectJustAndCompletion() {
        let subject = CurrentValueSubject<Int, Never>(5)
        var values: [Int] = []
        var finished = false
        let token = subject.sink(receiveCompletion: { finished = $0 == .finished }, receiveValue: { values.append($0) })
        subject.value = 6
        subject.send(completion: .finished)
        subject.send(7)
        #expect(values == [5, 6] && finished)
        final class Label { var text = "" }
        let label = Label()
        let assigned = Just("hello").assign(to: \.text, on: label)
        #expect(label.text == "hello")
        _ = (token, assigned)
    }

    @Test func assignToAPublishedPropertyRepublishesThroughIt() {
        final class Badge: ObservableObject {
            @Published var count = 0
            init(_ counts: PassthroughSubject<Int, Never>) { counts.map { $0 * 10 }.assign(to: &$count) }
        }
        let counts = PassthroughSubject<Int, Never>()
        let badge = Badge(counts)
        var changes = 0
        let token = badge.objectWillChange.sink { changes += 1 }
        counts.send(2)
        #expect(badge.count == 20 && changes == 1)
        _ = token
    }

    @Test func receiveOnDeliversOnTheQueueInOrderAndNotAfterCancel() {
        let queue = DispatchQueue(label: "receive-on")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let subject = PassthroughSubject<Int, Never>()
        let lock = NSLock()
        var seen: [Int] = []
        var onQueue = true
        let token = subject.receive(on: queue).sink { value in
            lock.withLock {
                seen.append(value)
                onQueue = onQueue && DispatchQueue.getSpecific(key: key) == 1
            }
        }
        for value in 1...100 { subject.send(value) }
        queue.sync {}
        #expect(lock.withLock { seen } == Array(1...100))
        #expect(lock.withLock { onQueue })
        queue.suspend()
        subject.send(101)
        token.cancel()
        queue.resume()
        queue.sync {}
        #expect(lock.withLock { seen.count } == 100)
    }

    @Test func notificationCenterPublisherUntilCancelled() {
        let center = NotificationCenter()
        let name = Notification.Name("WaterLogged")
        var count = 0
        let token = center.publisher(for: name).sink { _ in count += 1 }
        center.post(name: name, object: nil)
        token.cancel()
        center.post(name: name, object: nil)
        #expect(count == 1)
    }
}
