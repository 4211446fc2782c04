import RunWayApp
/// One step of a chaos run. Recordings run in the background (one at a time): the steps after a
/// `record` may kill the watch while it is answering.
public enum ChaosAction: Sendable, Equatable, CustomStringConvertible {
    /// Waits for the previous recording call to end, then starts `runway watch record --count N`.
    case record(count: Int)
    case pause(milliseconds: Int)
    case killPhone
    case relaunchPhone
    case killWatch
    case relaunchWatch
    case linkDown
    case linkUp

    public var description: String {
        switch self {
        case .record(let count): "record \(count)"
        case .pause(let milliseconds): "pause \(milliseconds) ms"
        case .killPhone: "SIGKILL phone"
        case .relaunchPhone: "relaunch phone"
        case .killWatch: "SIGKILL watch"
        case .relaunchWatch: "relaunch watch"
        case .linkDown: "link down"
        case .linkUp: "link up"
        }
    }
}

/// The schedule of a chaos run: a pure function of the seed (timing is the only thing left to chance).
///
/// Each iteration may start a burst of recordings, waits a moment, then does one disruption: SIGKILL
/// the phone and relaunch it after a while, SIGKILL the watch (sometimes trying to record while it is
/// down) and relaunch it, or take the link down or bring it back up. Between iterations both daemons
/// run; a relaunched watch comes back with its link up, as the real one does.
public enum ChaosSchedule {
    public struct Tuning: Sendable {
        public var largestBurst = 50
        public var burstChance = 0.75
        public var phoneKillShare = 0.4
        public var watchKillShare = 0.3
        public var longestPauseMilliseconds = 60
        public var longestPhoneDowntimeMilliseconds = 250
        public var longestWatchDowntimeMilliseconds = 150
        public init() {}
    }

    public static func make(seed: UInt64, iterations: Int, tuning: Tuning = Tuning()) -> [[ChaosAction]] {
        var random = SeededGenerator(seed: seed)
        var linkUp = true
        var schedule: [[ChaosAction]] = []
        schedule.reserveCapacity(iterations)
        for _ in 0..<iterations {
            var steps: [ChaosAction] = []
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
}
