// scripts/chaos: random SIGKILLs of both daemons and link cuts, then the invariant checker.
import Foundation
import PairTesting

let usage = """
    usage: scripts/chaos [--iterations N] [--seed S] [--legacy] [--link-rate N] [--link-conditions] [--watch-os]
                         [--largest-burst N]

    Starts a paired phone and watch in fresh homes, records flights in bursts and meanwhile SIGKILLs
    and relaunches both daemons and takes the link down and up, N times (default 50); then waits for
    the backlog to drain and checks that every flight whose recording succeeded is stored exactly once,
    in order, with empty outboxes and healthy stores. The seed (printed first; random by default)
    replays the same schedule of actions. --legacy runs the phone with --save-path ui-drain
    (RunWay 1.3's bug): the run must then report the lost flights and fail. --link-rate sets the
    watch's link speed in transfers a second (default 200). --link-conditions also draws random
    conditions for the air now and then (runway link set: latency, jitter, loss, bandwidth, range;
    docs/link-conditions.md), from the same seed; the final drain is in clear air. --watch-os runs the
    watch under watch-os (a 500 ms background budget), which launches the watch app on demand: a watch
    kill is watch-os's SIGKILL (the app dies with it), or the app is jetsammed or closed, and the link
    goes out of range and back (runway link set --range, which watch-os answers while the app is down).
    --largest-burst N: the most flights one recording asks for (default 50, at most 100,000); thousands
    make long drains (the watch keeps what it delivered for a quiet second) and recordings of several
    10,000-run chunks, each committed on its own.

    exit status: 0 every invariant holds, 1 a violation (the ids are named) or a failure, 2 bad usage.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("runway-chaos: \(message)\n\n\(usage)\n".utf8))
    exit(2)
}

func number<T: FixedWidthInteger>(_ flag: String, _ text: String?, _ range: ClosedRange<T>) -> T {
    guard let text, let value = T(text), range.contains(value) else {
        fail("\(flag) needs a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return value
}

var options = ChaosOptions(seed: UInt64.random(in: 0...UInt64(UInt32.max)))
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--iterations": options.iterations = number(argument, arguments.popFirst(), 1...100_000)
    case "--seed": options.seed = number(argument, arguments.popFirst(), 0...UInt64.max)
    case "--link-rate": options.linkRate = number(argument, arguments.popFirst(), 1...1_000_000)
    case "--largest-burst": options.largestBurst = number(argument, arguments.popFirst(), 1...100_000)
    case "--legacy": options.legacy = true
    case "--link-conditions": options.linkConditions = true
    case "--watch-os": options.watchOS = true
    case "--help", "-h":
        print(usage)
        exit(0)
    default: fail("unknown argument '\(argument)'")
    }
}

exit(
    ChaosRunner.run(options) { line in
        print(line)
        fflush(nil)
    })
