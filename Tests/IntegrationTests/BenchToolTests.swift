import Foundation
import PairTesting
import Testing

/// `scripts/bench`'s `runway-bench`: its options, and the many-pairs run at its smallest through the real
/// binaries. Durations are printed, never asserted.
@Suite(.serialized) struct BenchToolTests {
    static let exclusive = "bench: --only-cold-start, --only-drain, --only-latency, --only-memory, --only-pairs and --only-idle-os exclude each other"

    @Test(arguments: [
        (["--pairs", "0"], "bench: --pairs needs a positive number"),
        (["--drain-runs", "x"], "bench: --drain-runs needs a positive number"),
        (["--load", "-5"], "bench: --load needs a positive number"),
        (["--load-runs", "0"], "bench: --load-runs needs a positive number"),
        (["--pairs"], "bench: --pairs needs a positive number"),
        (["--only-drain", "--only-pairs"], BenchToolTests.exclusive),
        (["--only-cold-start", "--only-drain"], BenchToolTests.exclusive),
        (["--only-memory", "--only-pairs"], BenchToolTests.exclusive),
        (["--only-idle-os", "--only-pairs"], BenchToolTests.exclusive),
        (["--only-latency", "--only-drain"], BenchToolTests.exclusive),
        (["--pair", "3"], "bench: unknown option --pair"),
        (["--load-dir"], "bench: --load-dir needs a directory"),
        (["--load-dir", "/nonexistent/x"], "bench: --load-dir /nonexistent/x: not a directory this user can write to"),
        (["--latency-dir", "/etc/hostname"], "bench: --latency-dir /etc/hostname: not a directory this user can write to"),
        (
            ["--latency-dir", "/tmp/" + String(repeating: "d", count: 40)],
            "bench: --latency-dir /tmp/\(String(repeating: "d", count: 40)): not a directory this user can write to"
        ),
        (
            ["--load-dir", "/tmp/////////////////////////////////////////"],
            "bench: --load-dir /tmp/////////////////////////////////////////: longer than 40 bytes (the daemons' socket paths must fit in 107)"
        ),
    ])
    func badArgumentsAreOneLineAndExit2(arguments: [String], message: String) throws {
        let result = try runTool(arguments, binary: "runway-bench")
        #expect(result.status == 2)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty)
    }

    /// `scripts/bench-instructions` refuses what is not two counts, smaller first, with one line and exit 2,
    /// before it builds or installs anything.
    @Test(arguments: [
        (["5"], "bench-instructions: 5 is not a count of flights (100 to 9999999) or an option (--help)"),
        (["5000", "2000"], "bench-instructions: give two counts, the smaller first (such as 5000 10000)"),
        (["5000"], "bench-instructions: give two counts, the smaller first (such as 5000 10000)"),
        (["--keep"], "bench-instructions: --keep needs a directory"),
        (["--fast"], "bench-instructions: --fast is not a count of flights (100 to 9999999) or an option (--help)"),
    ])
    func instructionsScriptRefusesBadArguments(arguments: [String], message: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bench-instructions").path
        let result = try runTool([script] + arguments, binary: "/bin/bash")
        #expect(result.status == 2)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpNamesTheNewOptions() throws {
        let result = try runTool(["--help"], binary: "runway-bench")
        #expect(result.status == 0)
        for option in [
            "--drain-runs R", "--load N", "--pairs N", "--only-drain", "--only-latency", "--only-memory", "--only-pairs", "--load-dir DIR", "--latency-dir DIR",
            "--load-runs R", "--idle-os-pairs N", "--only-idle-os",
        ] {
            #expect(result.stdout.contains(option), "\(option)")
        }
    }

    /// The rows of `--only-pairs --pairs 2`, and of `--only-idle-os --idle-os-pairs 2`.
    static let pairRows = [
        "| 2 pairs: all 4 daemons started at once → every one ready |", "| 2 pairs: PSS per idle phone-daemon |",
        "| 2 pairs: PSS per idle watch-agent |", "| 2 pairs: 10 runs each, every link up at once → every outbox empty (every id checked) |",
        "| 2 pairs: SIGTERM to all → every one exited 0 |",
    ]
    static let idleOSRows = [
        "| 2 idle pairs (phone-os + watch-os, no app): every OS started at once → ready |", "| 2 idle pairs: PSS per phone-os |",
        "| 2 idle pairs: PSS per watch-os |", "| 2 idle pairs: private dirty per phone-os |", "| one idle phone-os's private dirty pages, by mapping | ",
    ]

    /// `runway-bench ARGUMENTS`, which must succeed and print every one of `rows`: its result.
    func benchPrints(_ arguments: [String], rows: [String]) throws -> CommandResult {
        let result = try runTool(arguments, binary: "runway-bench")
        #expect(result.status == 0, "\(result.stderr)")
        for row in rows { #expect(result.stdout.contains(row), "\(row)\n\(result.stdout)") }
        return result
    }

    /// Two pairs started at once, ten runs each drained at once and checked id by id, every daemon
    /// stopped with exit 0: the run succeeds and prints its rows (whatever the figures are).
    @Test func twoPairsRecordDrainAreCheckedAndStop() throws {
        let result = try benchPrints(["--only-pairs", "--pairs", "2"], rows: Self.pairRows)
        #expect(!result.stdout.contains("n/a"), "\(result.stdout)")
    }

    /// Two pairs at rest under their OSes (no app): started at once, ready, and each OS's memory read —
    /// the rows are there with figures, and nothing of the pairs is left running.
    @Test func twoIdlePairsUnderTheirOSesAreMeasured() throws {
        let result = try benchPrints(["--only-idle-os", "--idle-os-pairs", "2"], rows: Self.idleOSRows)
        #expect(!result.stdout.contains("nan"), "\(result.stdout)")
        #expect(result.stdout.contains("[heap] "), "the breakdown names the heap: \(result.stdout)")
    }

    /// The latency rows at their smallest, each pair's homes in a directory of the test's own
    /// (`--latency-dir`, `--load-dir`), two drains pooled (`--load-runs`): the run succeeds, names the
    /// homes in its rows, counts the flights of both drains, and has checked every pair id by id (a
    /// violation fails the run: exit 1).
    @Test func latencyRowsWithTheirHomesElsewhereAreChecked() throws {
        let measured = makeTemporaryDirectory("lt")
        let draining = makeTemporaryDirectory("ld")
        defer {
            removeDirectory(measured)
            removeDirectory(draining)
        }
        let result = try runTool(
            ["--only-latency", "--latency-samples", "5", "--load", "1000", "--load-runs", "2", "--latency-dir", measured, "--load-dir", draining],
            binary: "runway-bench")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("| latency p50 (5 flights, its homes in \(measured)) |"), "\(result.stdout)")
        #expect(result.stdout.contains("| latency p99 while another pair in \(draining) drains 1,000 (min–max: each drain's p99) |"), "\(result.stdout)")
        // Both drains measured, one after the other, their flights pooled in one row.
        #expect(result.stderr.contains("bench: latency while another pair drains 1000 (2/2)"), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "bench: latency: the draining pair's homes in").count == 3, "\(result.stderr)")
        let pooled = result.stdout.split(separator: "\n").first { $0.contains("drains 1,000, 2× (") }
        #expect(pooled != nil, "\(result.stdout)")
        // The homes went there (the run says where), and were removed afterwards.
        #expect(result.stderr.contains("bench: latency: the draining pair's homes in \(draining)/rw-load-"), "\(result.stderr)")
        #expect(result.stderr.contains("bench: latency: the measured pair's homes in \(measured)/rw-lat-"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: draining).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: measured).isEmpty)
    }
}
