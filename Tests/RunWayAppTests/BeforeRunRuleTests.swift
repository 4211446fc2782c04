import Posix
import Testing
@testable import RunWayApp
@testable import RunWayDomain

/// The Pre-flight rule, the version comparisons and the update rule, pure, on a manual clock and a
/// hand-driven lookup: no daemon, no sleeping.
@Suite struct BeforeRunRuleTests {
    // MARK: - Pre-flight (APP_SPEC C)

    static var everySnapshot: [PreflightCheck.WatchSnapshot] {
        var all: [PreflightCheck.WatchSnapshot] = []
        for bits in 0..<16 {
            all.append(.init(activated: bits & 1 != 0, paired: bits & 2 != 0, watchAppInstalled: bits & 4 != 0, reachable: bits & 8 != 0))
        }
        return all
    }

    @Test func heartRateModeFollowsTheRowInEveryState() {
        for snapshot in Self.everySnapshot {
            #expect(PreflightCheck.heartRateModeAvailable(snapshot) == PreflightCheck.appleWatch(snapshot).ok, "\(snapshot)")
        }
    }

    @Test func theRowIgnoresReachabilityAndWaitsForActivation() {
        for snapshot in Self.everySnapshot {
            let label = PreflightCheck.appleWatch(snapshot).label
            let expected =
                !snapshot.activated
                ? "CHECKING"
                : !snapshot.paired
                    ? "NOT PAIRED"
                    : !snapshot.watchAppInstalled ? "APP NOT INSTALLED" : "READY"
            #expect(label == expected, "\(snapshot)")
            var flipped = snapshot
            flipped.reachable.toggle()
            #expect(PreflightCheck.appleWatch(flipped) == PreflightCheck.appleWatch(snapshot))
        }
    }

    @Test func theLegacyRowIsReachabilityWithNoActivationGuard() {
        let window = PreflightCheck.WatchSnapshot(activated: false, paired: false, watchAppInstalled: false, reachable: false)
        #expect(PreflightCheck.appleWatch(window, rule: .legacy).label == "NOT PAIRED")
        let background = PreflightCheck.WatchSnapshot(activated: true, paired: true, watchAppInstalled: true, reachable: false)
        #expect(PreflightCheck.appleWatch(background, rule: .legacy).label == "NOT CONNECTED")
        #expect(PreflightCheck.heartRateModeAvailable(background, rule: .legacy))  // 1.3.1's own copy disagreed with its row
        var foreground = background
        foreground.reachable = true
        #expect(PreflightCheck.appleWatch(foreground, rule: .legacy) == .init(label: "CONNECTED", ok: true))
    }

    // MARK: - Versions (APP_SPEC F.1, F.5)

    @Test func theNumericComparisonTable() {
        #expect(AppVersion.isNewer("1.10", than: "1.9"))
        #expect(!AppVersion.isNewer("1.9", than: "1.10"))
        #expect(AppVersion.numericCompare("1.3.2", "1.4") < 0)
        #expect(AppVersion.numericCompare("1.4", "1.4") == 0)
        #expect(AppVersion.numericCompare("1.4.0", "1.4") > 0)  // Foundation's quirk, pinned
        #expect(AppVersion.numericCompare("1.04", "1.4") == 0)
        #expect(AppVersion.numericCompare("2", "10") < 0)
        #expect(AppVersion.numericCompare("1.4b", "1.4a") > 0)
    }

    @Test func theMismatchIgnoresTrailingZeros() {
        #expect(!AppVersion.differ("1.4", "1.4.0"))
        #expect(!AppVersion.differ("1.4.0.0", "1.4"))
        #expect(AppVersion.differ("1.4", "1.4.1"))
        #expect(AppVersion.differ("1.3.2", "1.4"))
        #expect(!AppVersion.differ("1.04", "1.4"))
        #expect(AppVersion.differ("1", "10"))
    }

    @Test func whatAVersionMayBe() {
        for good in ["1", "1.4", "1.3.2", "9999.0.0.9999", "0"] { #expect(AppVersion.problem(good) == nil, "\(good)") }
        for bad in ["", "1.", ".1", "1..2", "1.2.3.4.5", "1.10000", "a", "1.4b", " 1.4", "-1", "1,4"] {
            #expect(AppVersion.problem(bad) != nil, "\(bad)")
        }
    }

    // MARK: - The update rule (APP_SPEC F.3)

    final class Harness {
        var now = 1_790_838_000.0  // 2026-10-01T07:00:00Z
        var running = false
        var asked = 0
        var pending: ((AppUpdateService.Answer) -> Void)?
        var reports: [AppUpdateService.Report] = []
        let service: AppUpdateService

        init(installed: String) throws {
            service = try AppUpdateService(installed: installed, database: nil, logger: Logger(component: "test", minimumLevel: .error))
            service.now = { [unowned self] in self.now }
            service.isRunning = { [unowned self] in self.running }
            service.lookup = { [unowned self] done in
                self.asked += 1
                self.pending = done
            }
        }

        func check() { service.check { [unowned self] in self.reports.append($0) } }
        func answer(_ body: String) { let done = pending!; pending = nil; done(.body(Array(body.utf8))) }
        func fail() { let done = pending!; pending = nil; done(.failed("network")) }
        var last: AppUpdateService.Outcome? { reports.last?.outcome }
    }

    static func store(_ version: String) -> String {
        #"{"resultCount":1,"results":[{"version":"\#(version)","trackViewUrl":"https://apps.apple.com/kr/app/x?id=1"}]}"#
    }

    @Test func everyBranchOfTheRule() throws {
        let h = try Harness(installed: "1.3.1")
        h.running = true
        h.check()
        #expect(h.last == .skippedRunning && h.asked == 0 && h.service.lastCheckedAt == nil)
        h.running = false

        h.check()
        h.fail()
        #expect(h.last == .failed && h.service.lastCheckedAt == nil)
        for body in ["{", "{}", #"{"results":[]}"#, #"{"results":[{"version":"1.5"}]}"#] {
            h.check()
            h.answer(body)
            #expect(h.last == .failed && h.service.lastCheckedAt == nil, "\(body)")
        }
        h.check()
        h.answer(Self.store("1.3.2"))
        #expect(h.last == .update && h.reports.last?.update?.storeURL == "https://apps.apple.com/kr/app/x?id=1")
        #expect(h.service.lastCheckedAt == h.now)
        let asked = h.asked
        h.check()
        #expect(h.last == .skippedToday && h.asked == asked)

        h.now += 86_400
        h.check()
        h.answer(Self.store("1.3.1"))
        #expect(h.last == .notNewer && h.service.lastCheckedAt == h.now)

        // The race: the run starts while the lookup is on its way; the day is spent anyway.
        h.now += 86_400
        h.check()
        h.running = true
        h.answer(Self.store("1.4"))
        #expect(h.last == .suppressedRunning && h.service.lastCheckedAt == h.now)
        h.running = false
        h.check()
        #expect(h.last == .skippedToday)
    }

    @Test func twoChecksWhileOneLookupIsOnItsWayShareIt() throws {
        let h = try Harness(installed: "1.9")
        h.check()
        h.check()
        #expect(h.asked == 1 && h.reports.isEmpty)
        h.answer(Self.store("1.10"))
        #expect(h.reports.map(\.outcome) == [.update, .update])
    }
}
