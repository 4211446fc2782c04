import Posix

/// Makes runs that look like real ones: a warm-up, a steady pace with some drift, a stop or two (pace 0,
/// heart rate falling), heart rate following effort. Samples every 30 seconds of moving time.
public struct FlightGenerator {
    public var generator: SeededGenerator
    public static let sampleInterval: Double = 30

    public init(seed: UInt64? = nil) {
        generator = seed.map(SeededGenerator.init(seed:)) ?? SeededGenerator()
    }

    /// One finished run of `distanceKm` (random 3–12 km if nil), ending at `endingAt`.
    public mutating func flight(distanceKm requested: Double? = nil, endingAt end: Double, recordedAt: Double? = nil, sequence: Int = 0) -> Flight {
        let distanceKm = requested ?? Double.random(in: 3...12, using: &generator).rounded(toPlaces: 2)
        let mode: FlightMode = Double.random(in: 0..<1, using: &generator) < 0.3 ? .heartRate : .pace
        let steadyPace = Double.random(in: 300...420, using: &generator)  // 5:00–7:00 per km
        let restingHR = Double.random(in: 58...72, using: &generator)
        let cruiseHR = Double.random(in: 140...165, using: &generator)
        let stopCount = Int.random(in: 0...2, using: &generator)
        let totalMeters = distanceKm * 1000
        let stopsAt = (0..<stopCount).map { _ in Double.random(in: 0.25...0.85, using: &generator) * totalMeters }.sorted()

        var samples: [FlightSample] = []
        var time = 0.0, meters = 0.0, heartRate = restingHR + 20, moving = 0.0, pendingStops = stopsAt[...]
        while meters < totalMeters {
            let progress = meters / totalMeters
            if let stop = pendingStops.first, meters >= stop {
                // A stop: 1–3 minutes standing, heart rate falling, pace frozen at 0.
                pendingStops = pendingStops.dropFirst()
                let standing = Double.random(in: 60...180, using: &generator)
                var stood = 0.0
                while stood < standing {
                    stood = min(stood + Self.sampleInterval, standing)
                    heartRate = max(restingHR + 25, heartRate - 6)
                    samples.append(FlightSample(time: Float(time + stood), distance: Float(meters), pace: 0, heartRate: Float(heartRate)))
                }
                time += standing
                continue
            }
            let warmUp = progress < 0.08 ? 1.12 - progress : 1.0
            let fatigue = 1.0 + 0.04 * progress
            let pace = steadyPace * warmUp * fatigue * Double.random(in: 0.97...1.03, using: &generator)
            let step = min(Self.sampleInterval, (totalMeters - meters) / 1000 * pace)
            meters = min(totalMeters, meters + step / pace * 1000)
            time += step
            moving += step
            heartRate += (cruiseHR * (0.9 + 0.1 * progress) - heartRate) * 0.25 + Double.random(in: -2...2, using: &generator)
            samples.append(FlightSample(time: Float(time), distance: Float(meters), pace: Float(pace), heartRate: Float(heartRate)))
        }
        let moved = samples.filter { $0.pace > 0 }
        let averageHR = moved.isEmpty ? heartRate : moved.reduce(0.0) { $0 + Double($1.heartRate) } / Double(moved.count)
        return Flight(
            id: Self.flightID(recordedAt: recordedAt ?? end, sequence: sequence, using: &generator), startedAt: end - time.rounded(.up), endedAt: end,
            distanceKm: distanceKm,
            durationSeconds: moving.rounded(), averagePaceSecondsPerKm: (moving / max(distanceKm, 0.001)).rounded(toPlaces: 1),
            averageHeartRate: averageHR.rounded(toPlaces: 1), mode: mode, packedSamples: Flight.pack(samples))
    }

    /// `count` runs, oldest first, the newest ending at `now`: a day or so apart, closer together when
    /// there are more than a year's worth.
    public mutating func flights(count: Int, distanceKm: Double?, now: Double) -> [Flight] {
        flights(0..<count, of: count, distanceKm: distanceKm, now: now)
    }

    /// Runs `range` of a series of `total` (as `flights(count:)` spaces them), so a long series can be
    /// made a slice at a time in bounded memory.
    public mutating func flights(_ range: Range<Int>, of total: Int, distanceKm: Double?, now: Double) -> [Flight] {
        let spacing = total <= 365 ? 86_400.0 : 365 * 86_400 / Double(total)
        return range.map { index in
            let jitter = total <= 365 ? Double.random(in: -3600...3600, using: &generator) : 0
            let end = now - Double(total - 1 - index) * spacing + (index == total - 1 ? 0 : jitter)
            return flight(distanceKm: distanceKm, endingAt: end, recordedAt: now, sequence: index)
        }
    }

    /// Flight ids are time-ordered UUIDs (version 7) stamped with when the watch recorded them, and a
    /// counter within one recording: the phone's dedup index then grows at its end. Any unique id would
    /// be stored correctly; random ones just cost more index pages per commit.
    static func flightID(recordedAt seconds: Double, sequence: Int, using generator: inout SeededGenerator) -> String {
        let milliseconds = UInt64(max(0, seconds * 1000)) + UInt64(sequence / 4096)
        return Identifier.uuidV7(milliseconds: milliseconds, counter: UInt16(sequence % 4096), using: &generator)
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
