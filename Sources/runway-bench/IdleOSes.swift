import Foundation
import Posix
import PairTesting

/// Pairs at rest as `runway up` leaves them (`--idle-os-pairs N`): phone-os and watch-os for each pair,
/// no app running — the state most pairs of a test farm are in most of the time. Every OS started at
/// once and timed to `ready`; then, quiet, each one's PSS and private dirty pages, and what the private
/// pages of one of them are (its `smaps`, summed by mapping).
struct IdleOSes {
    let count: Int

    struct Result {
        var readySeconds: Double
        var phonePSS = Sample()
        var watchPSS = Sample()
        var phoneDirty = Sample()
        var watchDirty = Sample()
        /// One phone-os's private dirty kB by what holds them (heap, stacks, a library's relocations…).
        var privateByMapping: [(String, Int)] = []
    }

    func run() throws -> Result {
        raiseDescriptorLimit(to: 8 * count + 256)
        noteInotifyLimit(wanted: 3 * count)
        progress("idle OSes: pairing \(count) fresh homes")
        let pairs = try (0..<count).map { _ in try SimulatedPair(tag: "idle") }
        defer { for pair in pairs { pair.cleanUp() } }
        var oses: [ChildProcess] = []
        defer { for os in oses { _ = os.stop(grace: 5) } }
        progress("idle OSes: starting \(2 * count) OS processes at once")
        let started = now()
        for pair in pairs {
            oses.append(try start("watch-os", pair.watchHome, pair.watchLog))
            oses.append(try start("phone-os", pair.phoneHome, pair.phoneLog))
        }
        for os in oses { try os.waitForLine("ready", timeout: 600) }
        var result = Result(readySeconds: now() - started)
        progress("idle OSes: all ready in \(format(result.readySeconds, 2)) s; letting them go quiet")
        usleep(4_500_000)
        for (index, os) in oses.enumerated() {
            guard let rollup = memoryRollup(os.pid) else { continue }
            if index % 2 == 0 {
                result.watchPSS.add(Double(rollup.pss))
                result.watchDirty.add(Double(rollup.privateDirty))
            } else {
                result.phonePSS.add(Double(rollup.pss))
                result.phoneDirty.add(Double(rollup.privateDirty))
            }
        }
        if oses.count > 1 { result.privateByMapping = privateDirtyByMapping(oses[1].pid) }
        return result
    }

    func start(_ binary: String, _ home: String, _ log: String) throws -> ChildProcess {
        try ChildProcess(
            binary, ["--home", home], stdout: .pipe, stderr: .file(log, append: true),
            environment: DaemonProcess.environment(SimulatedPair.neutralLanguageEnvironment), removing: ["RUNWAY_CRASH_AT"])
    }
}

/// `Pss` and `Private_Dirty` of a process, in kB.
func memoryRollup(_ pid: Int32) -> (pss: Int, privateDirty: Int)? { Processes.memory(of: pid).map { ($0.proportional, $0.privateDirty) } }

/// A process's private dirty kB summed by what each mapping is (`Processes.privateDirtyByMapping`).
func privateDirtyByMapping(_ pid: Int32) -> [(String, Int)] { Processes.privateDirtyByMapping(of: pid) }

/// `--idle-os-pairs N`: N pairs at rest under their OSes.
func idleOSRows(count: Int, headline: inout [String]) throws -> [Row] {
    let result = try IdleOSes(count: count).run()
    let n = grouped(Double(count))
    let perOS = (result.phonePSS.values + result.watchPSS.values).reduce(0, +) / Double(max(1, 2 * count))
    headline.append("\(count) idle OS pairs ready in \(format(result.readySeconds, 1)) s, \(format(perOS / 1024, 2)) MB PSS per idle OS")
    func mb(_ sample: Sample) -> (String, String) {
        ("\(format(sample.median / 1024, 2)) MB", "\(format(sample.min / 1024, 2))–\(format(sample.max / 1024, 2))")
    }
    let breakdown = result.privateByMapping.prefix(6).map { "\($0.0) \($0.1) kB" }.joined(separator: ", ")
    return [
        (
            "\(n) idle pairs (phone-os + watch-os, no app): every OS started at once → ready", format(result.readySeconds, 2) + " s", "",
            count >= 1000 ? "≤ 30 s" : "", count >= 1000 ? (result.readySeconds <= 30 ? "met" : "missed") : ""
        ),
        ("\(n) idle pairs: PSS per phone-os", mb(result.phonePSS).0, mb(result.phonePSS).1, "≤ 1 MB", result.phonePSS.median <= 1024 ? "met" : "missed"),
        ("\(n) idle pairs: PSS per watch-os", mb(result.watchPSS).0, mb(result.watchPSS).1, "≤ 1 MB", result.watchPSS.median <= 1024 ? "met" : "missed"),
        ("\(n) idle pairs: private dirty per phone-os", mb(result.phoneDirty).0, mb(result.phoneDirty).1, "", ""),
        ("\(n) idle pairs: private dirty per watch-os", mb(result.watchDirty).0, mb(result.watchDirty).1, "", ""),
        ("one idle phone-os's private dirty pages, by mapping", breakdown.isEmpty ? "-" : breakdown, "", "", ""),
    ]
}
