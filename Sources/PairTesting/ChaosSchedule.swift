import Posix
import RunWayDomain
/// One step of a chaos run. Recordings run in the background (one at a time): the steps after a
/// `record` may kill the watch while it is answering.
package enum ChaosAction: Sendable, Equatable, CustomStringConvertible {
    /// Waits for the previous recording call to end, then starts `runway watch record --count N`.
    case record(count: Int)
    case pause(milliseconds: Int)
    case killPhone
    case relaunchPhone
    case killWatch
    case relaunchWatch
    case linkDown
    case linkUp
    /// `runway link set ARGS` (`scripts/chaos --link-conditions`): latency, jitter, loss, bandwidth, range.
    case linkConditions([String])
    /// Under watch-os (`scripts/chaos --watch-os`): `runway watch os jetsam` (the app SIGKILLed; watch-os
    /// launches it again when something is pending) and `runway watch app close` (to the background, where
    /// its budget reclaims it).
    case jetsamWatchApp
    case closeWatchApp

    package var description: String {
        switch self {
        case .record(let count): "record \(count)"
        case .pause(let milliseconds): "pause \(milliseconds) ms"
        case .killPhone: "SIGKILL phone"
        case .relaunchPhone: "relaunch phone"
        case .killWatch: "SIGKILL watch"
        case .relaunchWatch: "relaunch watch"
        case .linkDown: "link down"
        case .linkUp: "link up"
        case .linkConditions(let arguments): "link set " + arguments.joined(separator: " ")
        case .jetsamWatchApp: "jetsam watch app"
        case .closeWatchApp: "close watch app"
        }
    }
}

/// The schedule of a chaos run: a pure function of the seed (timing is the only thing left to chance).
///
/// Each iteration may start a burst of recordings, waits a moment, then does one disruption: SIGKILL
/// the phone and relaunch it after a while, SIGKILL the watch (sometimes trying to record while it is
/// down) and relaunch it, or take the link down or bring it back up. Between iterations both daemons
/// run; a relaunched watch comes back with its link up, as the real one does. Under watch-os
/// (`watchOS`) a watch disruption is one of three: watch-os SIGKILLed (its app with it) and relaunched,
/// the app jetsammed, or the app closed; the draws without it are the same as before, so a seed names
/// the same schedule it always did.
package enum ChaosSchedule {
    package struct Tuning: Sendable {
        package var largestBurst = 50
        package var burstChance = 0.75
        package var phoneKillShare = 0.4
        package var watchKillShare = 0.3
        package var longestPauseMilliseconds = 60
        package var longestPhoneDowntimeMilliseconds = 250
        package var longestWatchDowntimeMilliseconds = 150
        /// With `--link-conditions`: the chance that an iteration draws new link conditions first.
        package var linkConditionsChance = 0.4
        package init() {}
    }

    /// `linkConditions`: some iterations also draw new conditions for the air (`runway link set`).
    package static func make(
        seed: UInt64, iterations: Int, linkConditions: Bool = false, watchOS: Bool = false, tuning: Tuning = Tuning()
    ) -> [[ChaosAction]] {
        var random = SeededGenerator(seed: seed)
        var linkUp = true
        var schedule: [[ChaosAction]] = []
        schedule.reserveCapacity(iterations)
        for _ in 0..<iterations {
            var steps: [ChaosAction] = []
            if linkConditions, Double.random(in: 0..<1, using: &random) < tuning.linkConditionsChance {
                steps.append(.linkConditions(drawConditions(&random)))
            }
            if Double.random(in: 0..<1, using: &random) < tuning.burstChance {
                steps.append(.record(count: Int.random(in: 1...tuning.largestBurst, using: &random)))
            }
            steps.append(.pause(milliseconds: Int.random(in: 0...tuning.longestPauseMilliseconds, using: &random)))
            let roll = Double.random(in: 0..<1, using: &random)
            if roll < tuning.phoneKillShare {
                steps += [
                    .killPhone,
                    .pause(milliseconds: Int.random(in: 0...tuning.longestPhoneDowntimeMilliseconds, using: &random)),
                    .relaunchPhone,
                ]
            } else if roll < tuning.phoneKillShare + tuning.watchKillShare, watchOS, let app = watchAppDisruption(&random) {
                steps.append(app)
            } else if roll < tuning.phoneKillShare + tuning.watchKillShare {
                steps.append(.killWatch)
                if Double.random(in: 0..<1, using: &random) < 0.3 {
                    steps.append(.record(count: Int.random(in: 1...10, using: &random)))
                }
                steps += [
                    .pause(milliseconds: Int.random(in: 0...tuning.longestWatchDowntimeMilliseconds, using: &random)),
                    .relaunchWatch,
                ]
                linkUp = true
            } else {
                steps.append(linkUp ? .linkDown : .linkUp)
                linkUp.toggle()
            }
            schedule.append(steps)
        }
        return schedule
    }

    /// Under watch-os, half the watch's disruptions are the app's: jetsammed or closed (nil: watch-os itself).
    static func watchAppDisruption(_ random: inout SeededGenerator) -> ChaosAction? {
        let roll = Double.random(in: 0..<1, using: &random)
        return roll < 0.25 ? .jetsamWatchApp : roll < 0.5 ? .closeWatchApp : nil
    }

    /// Random conditions for the air, every one named (so each draw replaces the last): latency 0-80 ms,
    /// jitter up to half of it, loss 0-20%, a bandwidth limit now and then, mostly near, sometimes the
    /// relay, now and then out of range.
    static func drawConditions(_ random: inout SeededGenerator) -> [String] {
        let latency = Int.random(in: 0...80, using: &random)
        let jitter = Int.random(in: 0...(latency / 2), using: &random)
        let loss = [0, 0, 0.02, 0.05, 0.1, 0.2].randomElement(using: &random)!
        let bandwidth = [0, 0, 0, 200, 1000, 5000].randomElement(using: &random)!
        let roll = Double.random(in: 0..<1, using: &random)
        let range = roll < 0.6 ? "near" : roll < 0.9 ? "wifi" : "out"
        return [
            "--latency", String(latency), "--jitter", String(jitter), "--loss", String(loss), "--bandwidth", String(bandwidth), "--range", range,
        ]
    }
}
