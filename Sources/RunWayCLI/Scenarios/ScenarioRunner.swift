import Control
import JSONText
import PairInvariants
import Posix

/// Replays a parsed scenario on a `ScenarioPair`, one step at a time, each reported as it ends.
///
/// Steps run one after another and never overlap: a "random kill point" is a pause of a seeded random
/// length while the pair works on its own (`{"sleep": [0, 500]}` or a kill's `after`), then the kill.
/// Every figure an `expect` step checks comes from the invariant checker (`PairInvariants`), the same
/// code the integration tests hold the pair to, over what this run recorded and sent and what the
/// stores hold. A step that cannot be carried out (recording on a watch that was killed) ends the run;
/// an expectation that does not hold is reported and the run goes on. SIGINT and SIGTERM (blocked and
/// read from a `signalfd`, so that no step is cut in half) end it at the next step or pause.
final class ScenarioRunner {
    struct StepResult {
        let number: Int
        let kind: String
        let ok: Bool
        let detail: String
        let elapsed: Double
        let duration: Double
        var fields: [String: JSONValue] = [:]
    }

    struct StepFailure: Error { let message: String }
    struct Interrupted: Error { let signal: Int32 }

    let scenario: Scenario
    let pair: ScenarioPair
    let seed: UInt64
    var random: SeededGenerator
    let signals: SignalSource
    private let started = monotonicNow()
    /// Every recording call, in order, and each side's sent userInfo ids: what the checker holds the pair to.
    private(set) var history: [Recording] = []
    private(set) var sent: [ScenarioStep.Device: [String]] = [.watch: [], .phone: []]
    var lastReport: InvariantReport?

    init(_ scenario: Scenario, pair: ScenarioPair, seed: UInt64, signals: SignalSource) {
        self.scenario = scenario
        self.pair = pair
        self.seed = seed
        self.signals = signals
        random = SeededGenerator(seed: seed)
    }

    var elapsed: Double { monotonicNow() - started }

    /// Runs every step, handing each result to `report` as it ends. Throws `Interrupted` on a signal;
    /// returns the number of the step that could not be carried out, if one could not.
    func run(_ report: (StepResult) -> Void) throws(Interrupted) -> Int? {
        for (index, step) in scenario.steps.enumerated() {
            try checkSignals()
            let begun = monotonicNow()
            var fields: [String: JSONValue] = [:]
            let outcome: Result<(Bool, String), StepFailure>
            do {
                outcome = .success(try perform(step, number: index + 1, &fields))
            } catch let interrupted as Interrupted {
                throw interrupted
            } catch let failure as StepFailure {
                outcome = .failure(failure)
            } catch let error as ControlError {
                outcome = .failure(StepFailure(message: error.message))
            } catch {
                outcome = .failure(StepFailure(message: "\(error)"))
            }
            let now = monotonicNow()
            switch outcome {
            case let .success((ok, detail)):
                report(StepResult(number: index + 1, kind: step.kind, ok: ok, detail: detail, elapsed: now - started, duration: now - begun, fields: fields))
            case let .failure(failure):
                report(StepResult(number: index + 1, kind: step.kind, ok: false, detail: failure.message, elapsed: now - started, duration: now - begun))
                return index + 1
            }
        }
        return nil
    }

    // MARK: - Steps

    /// Carries the step out: whether it held (only an expectation can fail to) and what it did.
    private func perform(_ step: ScenarioStep, number: Int, _ fields: inout [String: JSONValue]) throws -> (Bool, String) {
        switch step {
        case let .record(count, distance):
            let n = count.pick(&random)
            fields["count"] = .integer(Int64(n))
            let reply = try DeviceClient(home: pair.watch).send(
                ControlCommands.Record {
                    $0.count = n
                    $0.seed = Int(random.next() >> 1)
                    $0.distanceKm = distance
                })
            history.append(.succeeded(reply.ids))
            return (true, "recorded \(reply.ids.count) runs on the watch")
        case let .send(from, count):
            let n = count.pick(&random)
            fields["count"] = .integer(Int64(n))
            let client = DeviceClient(home: from == .phone ? pair.phone : pair.watch)
            for index in 1...n {
                let id = "\(from.rawValue)-\(number)-\(index)"
                _ = try client.send(
                    ControlCommands.TransferUserInfo { $0.payload = .object(["scenarioTransfer": .string(id)]) })
                sent[from, default: []].append(id)
                if index % 100 == 0 { try checkSignals() }
            }
            return (true, "sent \(n) userInfo from the \(from.rawValue) (transfer-userinfo)")
        case let .kill(target, after):
            var waited = ""
            if let after {
                let ms = after.pick(&random)
                fields["afterMs"] = .integer(Int64(ms))
                try pause(milliseconds: ms)
                waited = " after \(ms) ms"
            }
            guard let what = pair.kill(target) else { return (true, "\(target.rawValue) not running\(waited): nothing killed") }
            return (true, "SIGKILL\(waited) to \(what)")
        case let .relaunch(target):
            return try relaunch(target, &fields)
        case let .link(up):
            _ = try DeviceClient(home: pair.watch).send(ControlCommands.Link { $0.state = up ? "up" : "down" })
            return (true, up ? "the link is back in range" : "the link is out of range")
        case let .clockAdvance(seconds, text):
            for home in [pair.phone, pair.watch] {
                _ = try DeviceClient(home: home).send(ClockRequest.Advance { $0.seconds = seconds })
            }
            return (true, "both clocks moved forward by \(text)")
        case let .app(device, action):
            return try app(device, action)
        case let .jetsam(device):
            let os = device == .phone ? "phone-os" : "watch-os"
            guard pair.osStatus(device)?.appState ?? "not running" != "not running" else {
                return (true, "the \(device.rawValue) app is not running: nothing to jetsam")
            }
            _ = try pair.osClient(device).send(ControlCommands.OSJetsam())
            return (true, "\(os) killed the app (jetsam)")
        case let .sleep(ms):
            let n = ms.pick(&random)
            fields["ms"] = .integer(Int64(n))
            try pause(milliseconds: n)
            return (true, "slept \(n) ms")
        case let .waitApp(device, state, timeout):
            try poll("the \(device.rawValue) app is \(state)", timeout: timeout) { pair.osStatus(device)?.appState == state }
            return (true, "the \(device.rawValue) app is \(state)")
        case let .drain(timeout):
            try poll("both outboxes are empty", timeout: timeout) { (try? pair.outstanding()) == 0 }
            return (true, "drained: nothing outstanding on either side (transfers and application contexts)")
        case let .expect(expectation):
            return try expect(expectation, &fields)
        }
    }

    /// Starts the target again (phone-os, or the watch's binary): it must not be running.
    private func relaunch(_ target: ScenarioStep.Target, _ fields: inout [String: JSONValue]) throws -> (Bool, String) {
        let pid: Int32
        switch target {
        case .watch:
            guard pair.watchPID == nil else { throw StepFailure(message: "\(pair.watchBinary) is running (pid \(pair.watchPID!)): kill it first") }
            pid = try pair.startWatch()
        default:
            guard pair.phoneOSPID == nil else { throw StepFailure(message: "phone-os is running (pid \(pair.phoneOSPID!)): kill it first") }
            pid = try pair.startPhoneOS()
        }
        fields["pid"] = .integer(Int64(pid))
        return (true, "started \(target == .watch ? pair.watchBinary : "phone-os") (pid \(pid))")
    }

    /// The user acting on a device's app (open, close, …), through its OS (RunWay's watch app: watch-agent).
    private func app(_ device: ScenarioStep.Device, _ action: String) throws -> (Bool, String) {
        if device == .phone {
            let status = try pair.osClient().send(ControlCommands.PhoneOSApp { $0.action = action })
            return (true, "phone app \(action): now \(status.appState)")
        }
        guard scenario.watchApp != nil else {
            // RunWay's watch app is watch-agent, always running: open and close move it to the foreground and back.
            let state = action == "open" ? "foreground" : "background"
            let reply = try DeviceClient(home: pair.watch).send(
                ControlCommands.WatchApp { $0.action = state })
            return (true, "\(reply.watchAppActive ? "active" : "not active") (RunWay's, always running)")
        }
        let status = try pair.osClient(.watch).send(
            ControlCommands.WatchOSApp { $0.action = action })
        return (true, "now \(status.appState)")
    }
}
