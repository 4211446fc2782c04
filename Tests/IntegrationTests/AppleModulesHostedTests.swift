import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Session managers written as apps write them — an ObservableObject with @Published state, KVO of the
/// session, os.Logger (`manager-app`) — hosted by phone-os while RunWay's watch sends, through SIGKILLs
/// of the app: the session's state is true inside `activationDidComplete`, what the store saves is what
/// was sent (the invariant checker), and what it publishes is what arrived, once, in order.
@Suite struct AppleModulesHostedTests {
    static var app: String { Binaries.path("manager-app") }

    static func lines(_ path: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    func documents(_ pair: SimulatedPair) -> String { pair.phoneHome + "/apps/manager-app/Documents/" }

    func killApp(_ pair: SimulatedPair) throws {
        if let pid = try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue { kill(pid_t(pid), SIGKILL) }
    }

    /// The watch's complication on, its app in the foreground; the phone app launched for the watch's
    /// transfers, killed, launched again: `rounds` rounds of 20 runs. Returns the app's Documents.
    func runThroughKills(_ pair: SimulatedPair, appArguments: [String] = [], rounds: Int = 6) throws -> String {
        try pair.startPhoneOS(["--app", Self.app, "--background-budget-ms", "400"] + appArguments)
        try pair.startWatch()
        #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
        for round in 0..<rounds {
            try pair.record(20)
            usleep(150_000)
            if round % 2 == 1 { try? killApp(pair) }
        }
        try pair.waitUntilDrained()
        try pair.waitUntil("the app is reclaimed") { try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running" }
        return documents(pair)
    }

    /// Apple: the state properties are valid once the session is activated. Each launch reads them in
    /// `session(_:activationDidCompleteWith:error:)`: the complication on (50 left today), the watch app
    /// installed and in the foreground (reachable) — not false, 0, false corrected 30 ms later.
    @Test func theSessionsStateIsTrueInsideActivationDidComplete() throws {
        try withPair(tag: "act-state") { pair in
            let documents = try runThroughKills(pair)
            let activations = Self.lines(documents + "activations.log")
            #expect(activations.count >= 2, "launched again after kills: \(activations)")
            print("manager-app's activations: \(activations.count), first: \(activations.first ?? "-")")
            for line in activations {
                #expect(line == "state=2 reachable=true paired=true installed=true complication=true remaining=50", "\(line)")
            }
            // The app heard of the watch's state at activation, not as a change just after.
            let events = try runTool(["phone", "events", "--home", pair.phoneHome, "--json", "--limit", "1024"])
            if events.status == 0 {
                let calls = events.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }.compactMap { $0["call"]?.stringValue }
                if let first = calls.firstIndex(of: "activationDidComplete") {
                    #expect(!calls[first...].prefix(3).contains("sessionWatchStateDidChange"), "\(calls.prefix(8))")
                }
            }
            // os.Logger's lines are in the device's log, beside the session's.
            let log =
                (try? String(contentsOfFile: pair.phoneHome + "/daemon.log", encoding: .utf8)) ?? (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8))
                ?? ""
            #expect(log.contains("event=os.log subsystem=com.example.intake category=session type=default message=\"activated: state=2"), "no os.Logger line")
            // os_log's (ReceiptLog: `import os.log`, an OSLog and format strings) beside them, in the same format.
            #expect(log.contains("event=os.log subsystem=com.example.intake category=receipts type=info message=\"received "), "no os_log line")
            #expect(log.contains("event=os.log subsystem=com.example.intake category=receipts type=debug message=\"activated, reachable: "), "no os_log line")
            // KVO in the hosted app: the watch's pending transfers seen, then received (its handler logs them).
            #expect(log.contains("message=\"content pending: false -> true\""), "hasContentPending never observed true")
            #expect(log.contains("message=\"content pending: true -> false\""), "hasContentPending never observed false again")
        }
    }

    /// The user opens the phone app while the watch, in range, retries its link (phone-os heard it knock):
    /// the session waits for it, and inside `activationDidComplete` the app reads true, 50, true as well.
    @Test func anAppOpenedWhileTheWatchIsNearbyReadsItsStateAtActivation() throws {
        try withPair(tag: "act-open") { pair in
            try pair.startPhoneOS(["--app", Self.app, "--background-budget-ms", "300"])
            try pair.startWatch()
            #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            try pair.record(3)
            try pair.waitUntilDrained()
            try pair.waitUntil("the app is reclaimed") { try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running" }
            let path = documents(pair) + "activations.log"
            let before = Self.lines(path).count
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the opened app activated", timeout: 30) { Self.lines(path).count > before }
            #expect(Self.lines(path).last == "state=2 reachable=true paired=true installed=true complication=true remaining=50")
        }
    }

    /// The watch's side: an app of the developer's as the watch's (`watch-agent --app`), the phone in range
    /// (phone-os, its app not running): inside `activationDidComplete` the phone is reachable already —
    /// the first connect settled first (the phone's system answered for its app).
    @Test func theWatchsAppReadsThePhoneReachableAtActivation() throws {
        try withPair(tag: "act-watch") { pair in
            pair.watchArguments = ["--app", Self.app]
            try pair.startPhoneOS()
            try pair.startWatch()
            let path = pair.watchHome + "/apps/manager-app/Documents/activations.log"
            try pair.waitUntil("the watch's app activated", timeout: 30) { !Self.lines(path).isEmpty }
            let line = Self.lines(path).first ?? ""
            #expect(line.hasPrefix("state=2 reachable=true "), "\(line)")
            // Its os.Logger message is in the trace, after the call it was written in.
            let events = try runTool(["watch", "events", "--home", pair.watchHome, "--json"])
            let trace = events.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
            let activation = trace.firstIndex { $0["call"] == .string("activationDidComplete") }
            let logged = trace.firstIndex { $0["call"] == .string("os.log") && $0["message"]?.stringValue?.hasPrefix("activated: ") == true }
            #expect(activation != nil && logged != nil && activation! < logged!, "\(events.stdout)")
            #expect(logged.map { trace[$0]["subsystem"] == .string("com.example.intake") && trace[$0]["type"] == .string("default") } == true)
        }
    }

    /// IntakeSessionStore saves each entry in its callback: the invariant checker finds nothing lost,
    /// duplicated or out of order; what its @Published list showed is what it saved, in the order saved.
    /// (Through SIGKILLs the session delivers at least once: an entry saved and published just before a
    /// kill, its batch not yet committed, comes again and is saved and shown again — this store does not
    /// dedup. The check asked for each id once, which held only while no kill fell inside a batch: it
    /// failed under load, one run in a few.)
    @Test func anObservableObjectStorePublishesWhatArrivedOnceInOrderThroughKills() throws {
        try withPair(tag: "obs-store") { pair in
            let documents = try runThroughKills(pair)
            let saved = Self.lines(documents + "entries.log")
            let report = DeliveryReport.check(sent: pair.recorded, received: saved)
            #expect(report.isClean, "\(report)")
            print("IntakeSessionStore through kills: \(report); published \(Self.lines(documents + "published.log").count)")
            #expect(report.sent == 120)
            let published = Self.lines(documents + "published.log")
            #expect(!published.isEmpty)
            #expect(!published.contains { $0.hasSuffix(" objectWillChange-missing") }, "a change published without objectWillChange first")
            // Each publication is one saving, in the order saved (the last saved before a kill may not have
            // reached the main queue): a subsequence of the journal.
            var next = saved.startIndex
            for id in published.compactMap({ $0.split(separator: " ").last.map(String.init) }) {
                guard let found = saved[next...].firstIndex(of: id) else {
                    Issue.record("published \(id) where the journal has no such saving next (published: \(published.count), saved: \(saved.count))")
                    break
                }
                next = found + 1
            }
        }
    }

    /// The @MainActor ConnectivityStore, without kills: it publishes every run the watch sent, once, in order.
    @Test func aMainActorStorePublishesEveryRunOnceInOrder() throws {
        try withPair(tag: "main-store") { pair in
            try pair.startPhoneOS(["--app", Self.app, "--background-budget-ms", "60000", "--app-arg=--connectivity-store"])
            try pair.startWatch()
            for _ in 0..<3 { try pair.record(20) }
            try pair.waitUntilDrained()
            let published = documents(pair) + "published.log"
            try pair.waitUntil("the store published them") { Self.lines(published).count >= 60 }
            try Self.checkPublished(Self.lines(published), against: pair.recorded, expectAll: true)
        }
    }

    /// Each line "pid id": no `objectWillChange` missing, no id twice, the ids in the order they arrived
    /// (`arrived`), and all of them when `expectAll`.
    static func checkPublished(_ lines: [String], against arrived: [String], expectAll: Bool) throws {
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.hasSuffix(" objectWillChange-missing") }, "a change published without objectWillChange first")
        let ids = lines.compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(Set(ids).count == ids.count, "published twice: \(ids.count - Set(ids).count)")
        let position = Dictionary(arrived.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let order = ids.compactMap { position[$0] }
        #expect(order.count == ids.count, "published what never arrived: \(ids.filter { position[$0] == nil }.prefix(5))")
        #expect(order == order.sorted(), "published out of order")
        if expectAll { #expect(ids == arrived, "published \(ids.count) of \(arrived.count)") }
    }
}
