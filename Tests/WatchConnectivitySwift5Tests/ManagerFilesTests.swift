import Foundation
import Testing

@testable import WatchConnectivity

/// The manager files written for iOS, run in a process that is no app on a device: what each sees of
/// the session and publishes (on the pair: IntegrationTests' AppleModulesHostedTests). Part of
/// SourceCompatibilityTests, which is serialized: they share `WCSession.default` and its delegate.
extension SourceCompatibilityTests {

    @Test func aKVOManagerHearsTheInitialStateAndNothingAfterStop() {
        let observer = SessionStateObserver()
        observer.start()
        #expect(observer.states == [.notActivated])
        observer.stop()
        WCSession.default.stateMayHaveChanged()
        #expect(observer.states == [.notActivated])
    }

    @Test func theStoreLoadsWhatItSavedAndPublishesBeforeChanging() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("run-1\nrun-2\n".utf8).write(to: directory.appendingPathComponent("entries.log"))
        let store = IntakeSessionStore(directory: directory)
        #expect(store.entries == ["run-1", "run-2"])
        var seen: [String] = []
        let will = store.objectWillChange.sink { seen.append("will \(store.entries.count)") }
        let entries = store.$entries.dropFirstValue().sink { seen.append("now \($0.count)") }
        store.session(WCSession.default, didReceiveUserInfo: ["id": "run-3"])
        #expect(
            eventually {
                RunLoop.main.run(until: Date().addingTimeInterval(0.01)); return seen.count == 2
            })
        #expect(seen == ["will 2", "now 3"])
        #expect(try String(contentsOf: directory.appendingPathComponent("entries.log"), encoding: .utf8) == "run-1\nrun-2\nrun-3\n", "saved in the callback")
        _ = (will, entries)
    }

    @Test @MainActor func theUIKitSenderWritesAndHandsTheFileToTheSession() {
        let sender = PhotoShareSender()
        sender.share(thumbnail: Data([0xFF, 0xD8, 0xFF]), named: "thumb-\(getpid())")
        #expect(eventually { sender.sentFiles.count == 1 })
        #expect(sender.sentFiles.first.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        #expect(sender.isInForeground, "an app with no OS of its own is active")
    }
}

extension Publisher {
    /// Every value but the current one a `@Published` property's publisher starts with.
    fileprivate func dropFirstValue() -> AnyPublisher<Output, Failure> {
        let seen = Counter()
        return filter { _ in seen.next() > 0 }.eraseToAnyPublisher()
    }
}

private final class Counter: @unchecked Sendable {
    private var count = 0
    func next() -> Int {
        defer { count += 1 }
        return count
    }
}
