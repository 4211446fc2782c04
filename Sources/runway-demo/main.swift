// The README's demo: the 1.3 bug's scenario, run against the real binaries, narrated.
import Foundation
import PairTesting

func say(_ text: String) { print(text); fflush(nil) }
func command(_ text: String) { say("\n$ " + text) }

var count = 3000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--count":
        guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
            FileHandle.standardError.write("runway-demo: --count needs a positive number\n".data(using: .utf8)!)
            exit(2)
        }
        count = value
    case "--help", "-h":
        say("usage: scripts/demo [--count N]   (default 3000 flights)")
        exit(0)
    default:
        FileHandle.standardError.write("runway-demo: unknown option \(argument)\nusage: scripts/demo [--count N]\n".data(using: .utf8)!)
        exit(2)
    }
}

/// One side-by-side line; the fixed path must be clean, or the demo stops with the violations.
func show(_ line: String, _ report: InvariantReport, label: String, mustBeClean: Bool) {
    say("  " + label.padding(toLength: 38, withPad: " ", startingAt: 0) + line)
    if mustBeClean && !report.isClean {
        for line in report.violations { say(line) }
        exit(1)
    }
}

/// What a scenario of the demo comes to: a line, and the checker's report.
protocol DemoOutcome {
    var line: String { get }
    var report: InvariantReport { get }
}
extension ColdLaunchScenario.Outcome: DemoOutcome {}
extension PhoneOSScenario.Outcome: DemoOutcome {}

/// After the `intro` lines, a scenario run with RunWay 1.3's save path (`ui-drain`), then with the fix's
/// (`immediate`), a line each under its label; the fix must come out clean.
func sideBySide(_ intro: [String], labels: [String], _ run: (_ savePath: String) throws -> any DemoOutcome) throws {
    say("")
    for line in intro { say(line) }
    for (savePath, label) in zip(["ui-drain", "immediate"], labels) {
        let outcome = try run(savePath)
        show(outcome.line, outcome.report, label: label, mustBeClean: savePath == "immediate")
    }
}

do {
    say("RunWay Pair: runs recorded on the watch alone must reach the phone's logbook exactly once,")
    say("even when iOS launches the phone app in the background and kills it mid-transfer.")

    // First the bug and its fix, side by side: the same scenario with each save path, the phone's kill by
    // hand, then by phone-os.
    let few = min(count, 500)
    try sideBySide(
        [
            "RunWay 1.3's bug, side by side: \(few) runs recorded while the phone is down; the phone is",
            "launched with no UI, takes every transfer (the watch's outbox empties), is SIGKILLed, relaunched:",
        ],
        labels: ["ui-drain (RunWay 1.3 before the fix):", "immediate (the fix):"]
    ) { try ColdLaunchScenario.run(savePath: $0, count: few, tag: "demo-\($0)") }
    try sideBySide(
        [
            "The same with no hand on the kill switch: the phone run by phone-os, its simulated iOS, which launches",
            "the app in the background when the watch has transfers pending and reclaims it after 300 ms:",
        ],
        labels: ["ui-drain under phone-os:", "immediate under phone-os:"]
    ) { try PhoneOSScenario.run(savePath: $0, count: few, tag: "demo-os-\($0)") }

    say("")
    say("And the fix under fire: SIGKILLed in the middle of the transfer.")
    let pair = try SimulatedPair(tag: "demo")
    defer { pair.cleanUp() }
    command("runway pair --phone \(pair.phoneHome) --watch \(pair.watchHome)")
    say("paired (fresh homes, mode 0700)")

    // A link about as fast as Bluetooth moves small userInfo transfers, so the kill lands mid-way.
    let rate = max(200, count / 2)
    pair.watchArguments = ["--link-rate", String(rate)]
    command("watch-agent --home \(pair.watchHome) --link-rate \(rate) &")
    try pair.startWatch()
    say("ready")
    // The picture the demo ends with: both counts sampled from here until the outbox has drained.
    let timelinePath = pair.root + "/timeline.ndjson"
    let timeline = try RunningTool([
        "timeline", "record", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--out", timelinePath,
        "--interval-ms", "50", "--until-drained", "--max-seconds", "900",
    ])

    command("runway watch record --home \(pair.watchHome) --count \(count)      # the phone is down")
    try pair.record(count)
    say("\(count) runs recorded; outstandingUserInfoTransfers = \(try pair.outstandingTransfers())")

    command("phone-daemon --home \(pair.phoneHome) &      # launched in the background: no UI attached")
    try pair.startPhone()
    try pair.waitUntil("the phone has stored some flights") { try pair.storedCount() >= count / 4 }
    let before = try pair.storedCount()
    command("kill -KILL \(pair.phone!.pid)      # reclaimed mid-transfer")
    pair.killPhone()
    say("killed with \(before)+ of \(count) stored and \(try pair.outstandingTransfers()) still queued on the watch")

    command("phone-daemon --home \(pair.phoneHome) &      # relaunched, still no UI")
    try pair.startPhone()
    try pair.waitUntilDrained(timeout: 600)
    say("the watch's outbox is empty")

    command("runway phone logbook --home \(pair.phoneHome)")
    let logbook = try runTool(["phone", "logbook", "--home", pair.phoneHome])
    let lines = logbook.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    say(lines.prefix(12).joined(separator: "\n"))
    if lines.count > 13 { say("  ... \(lines.count - 13) more lines") }

    let report = try pair.check()
    say("")
    say(report.summary.replacingOccurrences(of: ", order kept", with: ""))
    pair.stopAll()
    if !report.isClean {
        for line in report.violations { say(line) }
        exit(1)
    }
    _ = timeline.wait()
    try ReminderLadder.run()
    try GPWSSideBySide.run()

    say("")
    say("And the picture of the run under fire: the watch's outbox against the phone's stored flights, sampled")
    say("every 50 ms by `runway timeline record`; ✕ (x) is the SIGKILL, ▲ (^) a launch (docs/views.md).")
    command("runway timeline show \(timelinePath)")
    let picture = try runTool(["timeline", "show", timelinePath, "--width", "72", "--height", "12"])
    say(picture.status == 0 ? picture.stdout.trimmingCharacters(in: .newlines) : "(no timeline: \(picture.stderr))")
} catch {
    FileHandle.standardError.write("runway-demo: \(error)\n".data(using: .utf8)!)
    exit(1)
}
