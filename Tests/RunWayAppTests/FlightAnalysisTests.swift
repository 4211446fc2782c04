import Testing
@testable import RunWayApp
@testable import RunWayDomain

@Suite struct FlightAnalysisTests {
    /// Samples every 30 s at `pace` s/km, optionally standing still for `stopSeconds` at `stopAt` metres.
    func steadyRun(
        meters: Double, pace: Double, heartRate: Float = 150, stopAt: Double? = nil,
        stopSeconds: Double = 0
    ) -> [FlightSample] {
        var samples: [FlightSample] = []
        var time = 0.0, distance = 0.0, stopped = false
        while distance < meters {
            if let stopAt, !stopped, distance >= stopAt {
                stopped = true
                var stood = 0.0
                while stood < stopSeconds {
                    stood = min(stood + 30, stopSeconds)
                    samples.append(FlightSample(time: Float(time + stood), distance: Float(distance), pace: 0, heartRate: 100))
                }
                time += stopSeconds
            }
            let step = min(30, (meters - distance) / 1000 * pace)
            time += step
            distance = min(meters, distance + step / pace * 1000)
            samples.append(FlightSample(time: Float(time), distance: Float(distance), pace: Float(pace), heartRate: heartRate))
        }
        return samples
    }

    @Test func splitsPerKilometreWithAPartialLastOne() {
        let analysis = FlightAnalysis(samples: steadyRun(meters: 2500, pace: 300))
        #expect(analysis.splits.map(\.kilometre) == [1, 2, 3])
        #expect(analysis.splits.map(\.isPartial) == [false, false, true])
        #expect(abs(analysis.splits[2].meters - 500) < 0.01)
        for split in analysis.splits {
            #expect(abs(split.pace - 300) < 0.1, "km \(split.kilometre): \(split.pace)")
            #expect(split.averageHeartRate == 150)
        }
        #expect(analysis.stops.isEmpty)
        #expect(analysis.maximumHeartRate == 150)
    }

    /// A stop is listed on its own and does not slow the kilometre it happened in.
    @Test func stopsAreListedAndLeftOutOfTheSplits() {
        let analysis = FlightAnalysis(samples: steadyRun(meters: 3000, pace: 360, stopAt: 1400, stopSeconds: 100))
        #expect(analysis.stops.count == 1)
        #expect(abs(analysis.stops[0].seconds - 100) < 0.01)
        #expect(abs(analysis.stops[0].atMeters - 1400) < 30)
        #expect(analysis.splits.count == 3)
        for split in analysis.splits { #expect(abs(split.pace - 360) < 0.1, "km \(split.kilometre): \(split.pace)") }
        // The resting heart rate of the stop is not in the split's average.
        #expect(analysis.splits[1].averageHeartRate == 150)
    }

    @Test func aShortTailIsNoSplitAndNothingIsNoSplit() {
        #expect(FlightAnalysis(samples: steadyRun(meters: 1020, pace: 300)).splits.count == 1)
        let empty = FlightAnalysis(samples: [])
        #expect(empty.splits.isEmpty && empty.stops.isEmpty && empty.maximumHeartRate == nil)
    }

    @Test func heartRateIsWeightedByTime() {
        // 1 km: 150 s at 140 bpm, then 150 s at 170 bpm.
        let samples = [
            FlightSample(time: 150, distance: 500, pace: 300, heartRate: 140),
            FlightSample(time: 300, distance: 1000, pace: 300, heartRate: 170),
        ]
        let analysis = FlightAnalysis(samples: samples)
        #expect(analysis.splits.count == 1)
        #expect(analysis.splits[0].averageHeartRate == 155)
        #expect(analysis.maximumHeartRate == 170)
    }

    /// On generated runs the splits add up to the moving time, and the stops to the rest.
    @Test func generatedRunsAddUp() {
        var generator = FlightGenerator(seed: 21)
        for index in 0..<100 {
            // Half a kilometre over, so the last split is a partial one and all the moving time is in splits.
            let flight = generator.flight(distanceKm: Double(3 + index % 9) + 0.5, endingAt: 1_795_953_600)
            let analysis = FlightAnalysis(samples: flight.samples)
            let moving = analysis.splits.reduce(0.0) { $0 + $1.movingSeconds }
            let standing = analysis.stops.reduce(0.0) { $0 + $1.seconds }
            let meters = analysis.splits.reduce(0.0) { $0 + $1.meters }
            #expect(analysis.splits.count == 4 + index % 9)
            #expect(abs(moving - flight.durationSeconds) < 1, "\(moving) vs \(flight.durationSeconds)")
            #expect(abs(moving + standing - (flight.endedAt - flight.startedAt)) < 1.5)
            #expect(abs(meters - flight.distanceKm * 1000) < 0.5)
        }
    }
}
