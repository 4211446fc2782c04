import Control
import Glibc
import JSONText
import Posix

/// `runway scenario run FILE`: a bug report as a file (`docs/scenarios.md`), replayed on a fresh pair.
enum ScenarioCommands {
    static let run = CLI.Command(
        path: ["scenario", "run"], synopsis: "FILE [--seed S] [--keep] [--json]",
        summary: """
            Replays a scenario file (docs/scenarios.md; - reads stdin) on a fresh pair in temporary homes:
            phone-os and watch-agent (watch-os for a watchApp of your own), found next to runway and started as
            runway up starts them (with the file's phoneApp, watchApp and their arguments), then each step in turn — record or send N, kill the phone
            app, phone-os or the watch (SIGKILL), relaunch, link down/up, clock advance, app open/close/force-quit,
            jetsam, sleep, wait, drain, expect — each printed as it ends with the time since the start. Then a
            verdict: exit 0 if every expectation held, 1 if one did not or a step could not be carried out. The
            figures come from the invariant checker the tests use (lost, duplicated, out of order, outstanding,
            the stores' integrity). A malformed file is one line naming the step, exit 2, and nothing is run.
            --seed picks every range in the file ([5, 50]) the same way again; without it a seed is drawn and
            printed. The daemons are stopped at the end, and on SIGINT or SIGTERM (exit 1); the homes are removed
            unless --keep. Never runs on a registered pair: it kills what it started, and only that.
            """,
        specs: [
            .option("seed", "S", "the seed for every random choice (0 to 2^53; default: drawn, and printed)"),
            .flag("keep", "keep the temporary homes (stores, daemon.log) after the run"),
            CLI.jsonSpec,
        ],
        positionals: 1,
        run: { parsed in try runScenario(parsed) })

    static let all = [run]

    static func runScenario(_ parsed: ParsedArguments) throws -> Int32 {
        guard let file = parsed.positionals.first else { throw UsageError("the scenario FILE is required (docs/scenarios.md)") }
        let seed = try parsed.integer("seed", range: 0...(1 << 53)).map(UInt64.init) ?? UInt64.random(in: 0...(1 << 53))
        let bytes = try read(file)
        var scenario: Scenario
        do throws(ScenarioError) {
            scenario = try Scenario.parse(bytes)
        } catch {
            throw ControlError.invalid("\(file): \(error.description)")
        }
        scenario.phoneApp = try scenario.phoneApp.map { try executable($0, "phoneApp", relativeTo: file) }
        scenario.watchApp = try scenario.watchApp.map { try executable($0, "watchApp", relativeTo: file) }
        let json = parsed.has("json")
        // Blocked from here on and read between steps: a signal never cuts a step, or the clean-up, in half.
        let signals = try SignalSource([SIGINT, SIGTERM, SIGHUP])
        let pair = try ScenarioPair(scenario)
        Output.err("runway scenario: \(file) (\(scenario.steps.count) steps), seed \(seed); homes in \(pair.root)")
        defer {
            pair.stopAll()
            if parsed.has("keep") { Output.err("runway scenario: homes kept in \(pair.root)") } else { pair.removeHomes() }
        }
        let runner = ScenarioRunner(scenario, pair: pair, seed: seed, signals: signals)
        do {
            let phoneOS = try pair.startPhoneOS()
            let watch = try pair.startWatch()
            Output.err("runway scenario: started phone-os (pid \(phoneOS)) and \(pair.watchBinary) (pid \(watch)), logs in HOME/daemon.log")
        } catch {
            let message = "could not start the pair: \(error)"
            printVerdict(json: json, runner: runner, verdict: "fail", line: "FAIL: " + message, failed: 0, expectations: 0, failedStep: nil)
            return 1
        }
        var expectations = 0, failed = 0
        let stopped: Int?
        do throws(ScenarioRunner.Interrupted) {
            stopped = try runner.run { result in
                if result.kind == "expect" {
                    expectations += 1
                    if !result.ok { failed += 1 }
                }
                printStep(result, scenario.steps[result.number - 1], total: scenario.steps.count, json: json)
            }
        } catch {
            let name = error.signal == SIGINT ? "SIGINT" : error.signal == SIGTERM ? "SIGTERM" : "signal \(error.signal)"
            printVerdict(
                json: json, runner: runner, verdict: "interrupted", line: "INTERRUPTED by \(name): the daemons are stopped", failed: failed,
                expectations: expectations, failedStep: nil)
            return 1
        }
        let summary = runner.lastReport.map { "; " + $0.summary } ?? ""
        let tail = " (\(scenario.steps.count) steps in \(String(format1: runner.elapsed)) s, seed \(seed))"
        if let stopped {
            let kind = scenario.steps[stopped - 1].kind
            printVerdict(
                json: json, runner: runner, verdict: "fail", line: "FAIL: step \(stopped) (\(kind)) could not be carried out" + tail, failed: failed,
                expectations: expectations, failedStep: stopped)
            return 1
        }
        if failed > 0 {
            printVerdict(
                json: json, runner: runner, verdict: "fail", line: "FAIL: \(failed) of \(expectations) expectations did not hold\(summary)" + tail,
                failed: failed, expectations: expectations, failedStep: nil)
            return 1
        }
        printVerdict(
            json: json, runner: runner, verdict: "pass", line: "PASS: every expectation held (\(expectations))\(summary)" + tail, failed: 0,
            expectations: expectations, failedStep: nil)
        return 0
    }

    // MARK: - Output

    static func printStep(_ result: ScenarioRunner.StepResult, _ step: ScenarioStep, total: Int, json: Bool) {
        if json {
            var fields = result.fields
            fields["step"] = .integer(Int64(result.number))
            fields["kind"] = .string(result.kind)
            fields["ok"] = .bool(result.ok)
            fields["detail"] = .string(result.detail)
            fields["elapsedSeconds"] = .number(milliseconds(result.elapsed))
            fields["durationSeconds"] = .number(milliseconds(result.duration))
            Output.out(JSONValue.object(fields).text)
        } else {
            let time = String(format1: result.elapsed)
            let padded = String(repeating: " ", count: max(0, 6 - time.count)) + time
            Output.out("[\(padded)s] \(result.number)/\(total) \(step.text): \(result.detail)")
        }
    }

    static func printVerdict(
        json: Bool, runner: ScenarioRunner, verdict: String, line: String, failed: Int, expectations: Int, failedStep: Int?
    ) {
        guard json else {
            Output.out("verdict: " + line)
            return
        }
        var fields: [String: JSONValue] = [
            "verdict": .string(verdict), "seed": .integer(Int64(runner.seed)), "expectations": .integer(Int64(expectations)),
            "failedExpectations": .integer(Int64(failed)), "failedStep": failedStep.map { .integer(Int64($0)) } ?? .null,
            "elapsedSeconds": .number(milliseconds(runner.elapsed)), "message": .string(line),
        ]
        if let report = runner.lastReport {
            fields["report"] = .object([
                "recorded": .integer(Int64(report.recorded)), "stored": .integer(Int64(report.stored)),
                "lost": .integer(Int64(report.lost.count)), "duplicated": .integer(Int64(report.duplicated.count)),
                "orderKept": .bool(report.orderKept), "outstanding": .integer(Int64(report.outstandingTransfers)),
            ])
        }
        Output.out(JSONValue.object(fields).text)
    }

    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    // MARK: - Input

    /// The file's bytes (stdin for `-`), refused past the parser's limit before it is all read.
    static func read(_ file: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        do throws(SystemError) {
            let fd = file == "-" ? 0 : try systemCall("open(\(file))") { open(file, O_RDONLY | O_CLOEXEC) }
            defer { if fd != 0 { close(fd) } }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while bytes.count <= Scenario.Limits.fileBytes {
                let n = try systemCall("read(\(file))") { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
                if n == 0 { return bytes }
                bytes += chunk[0..<n]
            }
        } catch {
            throw ControlError.invalid("\(file): \(String(cString: strerror(error.errno)))")
        }
        throw ControlError.invalid("\(file): the file is over \(Scenario.Limits.fileBytes) bytes")
    }

    /// An app named in the header: relative to the scenario file's directory, and an executable file.
    static func executable(_ path: String, _ key: String, relativeTo file: String) throws -> String {
        var resolved = path
        if !path.hasPrefix("/"), file != "-", let slash = file.lastIndex(of: "/") { resolved = String(file[...slash]) + path }
        resolved = Filesystem.absolutePath(resolved)
        guard Filesystem.kind(of: resolved) == .regular, access(resolved, X_OK) == 0 else {
            throw ControlError.invalid("\(file): \"\(key)\": \(resolved) is not an executable file")
        }
        return resolved
    }
}

extension ScenarioStep {
    /// The step as the file wrote it, in words: `record [5, 50]`, `kill phone-app after [0, 500] ms`.
    var text: String {
        switch self {
        case let .record(count, distance): "record \(count.text)" + (distance.map { " of \($0) km" } ?? "")
        case let .send(from, count): "send \(count.text) from the \(from.rawValue)"
        case let .kill(target, after): "kill \(target.rawValue)" + (after.map { " after \($0.text) ms" } ?? "")
        case let .relaunch(target): "relaunch \(target.rawValue)"
        case let .link(up): up ? "link up" : "link down"
        case let .clockAdvance(_, text): "clock-advance \(text)"
        case let .app(action): "app \(action)"
        case .jetsam: "jetsam"
        case let .sleep(ms): "sleep \(ms.text) ms"
        case let .waitApp(state, _): "wait app \(state)"
        case .drain: "drain"
        case let .expect(expectation): "expect \(expectation.text)"
        }
    }
}

extension String {
    /// One decimal: `12.3`.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
