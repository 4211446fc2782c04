/// What the Flight Summary shows beyond a flight's stored figures, worked out from its samples:
/// per-kilometre splits, the stops, the heart-rate peak.
///
/// Splits are on moving time, like the flight's average pace (`durationSeconds` excludes stops): a
/// kilometre with a two-minute stop in it is not shown two minutes slower, the stop is listed instead.
public struct FlightAnalysis: Equatable, Sendable {
    public struct Split: Equatable, Sendable {
        /// 1 for the first kilometre.
        public let kilometre: Int
        /// 1000, or less for the last, partial one.
        public let meters: Double
        public let movingSeconds: Double
        /// Time-weighted over the split's moving time; nil if no sample had a heart rate.
        public let averageHeartRate: Double?

        public var isPartial: Bool { meters < 1000 }
        /// Seconds per kilometre.
        public var pace: Double { movingSeconds / (meters / 1000) }
    }

    public struct Stop: Equatable, Sendable {
        /// Where it happened, metres from the start.
        public let atMeters: Double
        public let seconds: Double
    }

    public let splits: [Split]
    public let stops: [Stop]
    public let maximumHeartRate: Double?

    /// A last stretch shorter than this is not worth a split of its own.
    public static let minimumPartialMeters = 50.0

    /// `samples` in time order (`Flight.samples`): a sample with pace 0 was taken while standing.
    public init(samples: [FlightSample]) {
        var builder = Builder()
        for sample in samples { builder.add(sample) }
        splits = builder.finish()
        stops = builder.stops
        maximumHeartRate = samples.lazy.map { Double($0.heartRate) }.filter { $0 > 0 }.max()
    }

    private struct Builder {
        var splits: [Split] = []
        var stops: [Stop] = []
        var previous = (time: 0.0, meters: 0.0)
        var openStop: (atMeters: Double, seconds: Double)?
        // The split being run: where it started, its moving time, its heart-rate × seconds.
        var splitStartMeters = 0.0
        var splitSeconds = 0.0
        var heartBeats = 0.0
        var heartSeconds = 0.0

        mutating func add(_ sample: FlightSample) {
            let time = Double(sample.time), meters = Double(sample.distance)
            // A sample outside the valid ranges (only a store written before `FlightLimits`, or edited
            // by hand, can hold one) is skipped: a distance of 3e38 m would otherwise mean 3e35 splits.
            guard time >= 0, time <= FlightLimits.longestRun, meters >= 0, meters <= FlightLimits.longestSampleMeters,
                sample.pace >= 0, sample.heartRate >= 0, sample.pace.isFinite, sample.heartRate.isFinite
            else { return }
            let seconds = max(0, time - previous.time)
            defer { previous = (time, max(meters, previous.meters)) }
            if sample.pace == 0 {
                openStop = (openStop?.atMeters ?? previous.meters, (openStop?.seconds ?? 0) + seconds)
                return
            }
            closeStop()
            let heartRate = Double(sample.heartRate)
            var from = previous.meters
            var remaining = seconds
            // Cut the stretch at every kilometre it crosses, sharing its time out by distance.
            while meters >= splitStartMeters + 1000, meters > from {
                let boundary = splitStartMeters + 1000
                let part = seconds * (boundary - from) / (meters - previous.meters)
                account(part, heartRate)
                remaining -= part
                finishSplit(meters: 1000)
                from = boundary
            }
            account(remaining, heartRate)
        }

        mutating func account(_ seconds: Double, _ heartRate: Double) {
            splitSeconds += seconds
            if heartRate > 0 {
                heartBeats += heartRate * seconds
                heartSeconds += seconds
            }
        }

        mutating func finishSplit(meters: Double) {
            splits.append(
                Split(
                    kilometre: splits.count + 1, meters: meters, movingSeconds: splitSeconds,
                    averageHeartRate: heartSeconds > 0 ? heartBeats / heartSeconds : nil))
            splitStartMeters += meters
            splitSeconds = 0
            heartBeats = 0
            heartSeconds = 0
        }

        mutating func closeStop() {
            if let stop = openStop, stop.seconds > 0 { stops.append(Stop(atMeters: stop.atMeters, seconds: stop.seconds)) }
            openStop = nil
        }

        mutating func finish() -> [Split] {
            closeStop()
            let rest = previous.meters - splitStartMeters
            if rest >= FlightAnalysis.minimumPartialMeters && splitSeconds > 0 { finishSplit(meters: rest) }
            return splits
        }
    }
}
