import Control
import JSONText
import Posix

/// `runway scenario run FILE|DIR...`: a bug report as a file (`docs/scenarios.md`), replayed on a fresh pair;
/// several in a CI's terms (`ScenarioSuite`: shards, JUnit XML).
enum ScenarioCommands {
    static let run = CLI.Command(
        path: ["scenario", "run"], synopsis: "FILE|DIR... [--seed S] [--shard I/N] [--junit FILE] [--keep] [--json]",
        summary: """
            Replays a scenario file (docs/scenarios.md; - reads stdin) on a fresh pair in temporary homes:
            phone-os and watch-agent (watch-os for a watchApp of your own), found next to runway and started as
            runway up starts them (with the file's phoneApp, watchApp and their arguments), then each step in turn — record or send N, kill the phone
            app, phone-os, the watch or the watch's app (SIGKILL), relaunch, link down/up, clock advance, app
            open/close/force-quit on either device, jetsam, sleep, wait, drain, expect — each printed as it ends
            with the time since the start. Then a verdict: exit 0 if every expectation held, 1 if one did not or a
            step could not be carried out. The figures come from the invariant checker the tests use (lost,
            duplicated, out of order, outstanding, the stores' integrity); an expectation held over nothing (no
            transfer queued on either device) fails unless it says "transfers": 0. A malformed file is one line
            naming the step, exit 2, and nothing is run.
            --seed picks every range in the file ([5, 50]) the same way again; without it a seed is drawn and
            printed. The daemons are stopped at the end, and on SIGINT or SIGTERM (exit 1); the homes are removed
            unless --keep. Never runs on a registered pair: it kills what it started, and only that.
            Several files (a directory: its *.json, by name) run one after another, each on a fresh pair, every
            one read and checked before the first runs; a summary line ends the run, exit 1 if any failed.
            --shard I/N runs the I-th of N slices (file k, from 0, in slice k mod N + 1): a CI matrix, each job
            a slice. --junit FILE writes JUnit XML: a suite named for its shard, one test case per file (named by
            the file; the seeds in the suite's properties), the steps in its system-out, an expectation that did
            not hold a failure and a run that could not reach its verdict an error, with the verdict and the lost
            and duplicated ids.
            """,
        specs: [
            .option("seed", "S", "the seed for every random choice (0 to 2^53; default: drawn, and printed)"),
            .option("shard", "I/N", "run only the I-th of N slices of the files (1 ≤ I ≤ N)"),
            .option("junit", "FILE", "write the verdicts as JUnit XML to FILE"),
            .flag("keep", "keep the temporary homes (stores, daemon.log) after the run"),
            CLI.jsonSpec,
        ],
        positionals: 10_000,
        run: { parsed in try runScenarios(parsed) })

    static let all = [run]

    static func runScenarios(_ parsed: ParsedArguments) throws -> Int32 {
        guard !parsed.positionals.isEmpty else { throw UsageError("the scenario FILE is required (docs/scenarios.md)") }
        let explicitSeed = try parsed.integer("seed", range: 0...(1 << 53)).map(UInt64.init)
        let shard = try parsed.value("shard").map { text throws(ControlError) in try ScenarioSuite.shard(text) }
        let junit = parsed.value("junit")
        if let junit {
            let directory = junit.contains("/") ? String(junit[..<junit.lastIndex(of: "/")!]) : "."
            guard Filesystem.kind(of: directory.isEmpty ? "/" : directory) == .directory else {
                throw ControlError.invalid("--junit: \(directory) is not a directory")
            }
        }
        let files = ScenarioSuite.slice(try ScenarioSuite.files(parsed.positionals), shard: shard)
        // Every file read and checked before any runs: a malformed one is one line, exit 2, and nothing runs.
        var scenarios: [(file: String, scenario: Scenario)] = []
        for file in files {
            let bytes = try read(file)
            var scenario: Scenario
            do throws(ScenarioError) {
                scenario = try Scenario.parse(bytes)
            } catch {
                throw ControlError.invalid("\(file): \(error.description)")
            }
            scenario.phoneApp = try scenario.phoneApp.map { try executable($0, "phoneApp", relativeTo: file) }
            scenario.watchApp = try scenario.watchApp.map { try executable($0, "watchApp", relativeTo: file) }
            scenarios.append((file, scenario))
        }
        let json = parsed.has("json")
        // Blocked from here on and read between steps: a signal never cuts a step, or the clean-up, in half.
        let signals = try SignalSource([SIGINT, SIGTERM, SIGHUP])
        var cases: [ScenarioSuite.Case] = []
        for (file, scenario) in scenarios {
            let seed = explicitSeed ?? UInt64.random(in: 0...(1 << 53))
            let (item, interrupted) = try runOne(file, scenario, seed: seed, keep: parsed.has("keep"), json: json, signals: signals)
            cases.append(item)
            if interrupted { break }
        }
        if let junit {
            do throws(SystemError) {
                try Filesystem.writeAtomically(Array(ScenarioSuite.junit(cases, shard: shard).utf8), to: junit, mode: 0o644)
            } catch {
                throw ControlError("--junit \(junit): \(String(cString: strerror(error.errno)))")
            }
        }
        let passed = cases.filter { $0.verdict == "pass" }.count
        if scenarios.count != 1 || shard != nil {
            let slice = shard.map { " (shard \($0.index)/\($0.count))" } ?? ""
            let notRun = scenarios.count - cases.count
            if json {
                Output.out(
                    JSONValue.object([
                        "scenarios": .integer(Int64(scenarios.count)), "passed": .integer(Int64(passed)),
                        "failed": .integer(Int64(cases.count - passed)), "notRun": .integer(Int64(notRun)),
                    ]).text)
            } else {
                Output.out(
                    "scenarios: \(scenarios.count)\(slice), \(passed) passed, \(cases.count - passed) failed" + (notRun > 0 ? ", \(notRun) not run" : ""))
            }
        }
        return passed == scenarios.count ? 0 : 1
    }

    /// One file on a fresh pair of its own: its steps, its verdict (printed), and whether a signal stopped it.
    static func runOne(
        _ file: String, _ scenario: Scenario, seed: UInt64, keep: Bool, json: Bool, signals: SignalSource
    ) throws -> (ScenarioSuite.Case, interrupted: Bool) {
        let pair = try ScenarioPair(scenario)
        Output.err("runway scenario: \(file) (\(scenario.steps.count) steps), seed \(seed); homes in \(pair.root)")
        defer {
            pair.stopAll()
            if keep { Output.err("runway scenario: homes kept in \(pair.root)") } else { pair.removeHomes() }
        }
        let runner = ScenarioRunner(scenario, pair: pair, seed: seed, signals: signals)
        // The steps' lines as printed without --json: the JUnit test case's <system-out>.
        var log: [String] = []
        func verdict(_ verdict: String, _ line: String, failed: Int, expectations: Int, failedStep: Int?, error: Bool = false) -> ScenarioSuite.Case {
            printVerdict(json: json, runner: runner, verdict: verdict, line: line, failed: failed, expectations: expectations, failedStep: failedStep)
            return ScenarioSuite.Case(
                file: file, seed: seed, verdict: verdict, message: line, lost: runner.lastReport?.lost ?? [],
                duplicated: runner.lastReport?.duplicated ?? [], seconds: runner.elapsed, error: error, log: log + ["verdict: " + line])
        }
        do {
            let phoneOS = try pair.startPhoneOS()
            let watch = try pair.startWatch()
            Output.err("runway scenario: started phone-os (pid \(phoneOS)) and \(pair.watchBinary) (pid \(watch)), logs in HOME/daemon.log")
        } catch {
            return (verdict("fail", "FAIL: could not start the pair: \(error)", failed: 0, expectations: 0, failedStep: nil, error: true), false)
        }
        var expectations = 0, failed = 0
        let stopped: Int?
        do throws(ScenarioRunner.Interrupted) {
            stopped = try runner.run { result in
                if result.kind == "expect" {
                    expectations += 1
                    if !result.ok { failed += 1 }
                }
                log.append(printStep(result, scenario.steps[result.number - 1], total: scenario.steps.count, json: json))
            }
        } catch {
            let name = error.signal == SIGINT ? "SIGINT" : error.signal == SIGTERM ? "SIGTERM" : "signal \(error.signal)"
            let line = "INTERRUPTED by \(name): the daemons are stopped"
            return (verdict("interrupted", line, failed: failed, expectations: expectations, failedStep: nil, error: true), true)
        }
        let summary = runner.lastReport.map { "; " + $0.summary } ?? ""
        let tail = " (\(scenario.steps.count) steps in \(String(format1: runner.elapsed)) s, seed \(seed))"
        if let stopped {
            let kind = scenario.steps[stopped - 1].kind
            let line = "FAIL: step \(stopped) (\(kind)) could not be carried out" + tail
            return (verdict("fail", line, failed: failed, expectations: expectations, failedStep: stopped, error: true), false)
        }
        if failed > 0 {
            let line = "FAIL: \(failed) of \(expectations) expectations did not hold\(summary)" + tail
            return (verdict("fail", line, failed: failed, expectations: expectations, failedStep: nil), false)
        }
        let line = "PASS: every expectation held (\(expectations))\(summary)" + tail
        return (verdict("pass", line, failed: 0, expectations: expectations, failedStep: nil), false)
    }
}
