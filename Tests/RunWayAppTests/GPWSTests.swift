import Connectivity
import PairTesting
import Storage
import Testing
import PropertyLists
@testable import RunWayApp
@testable import RunWayDomain

@Suite struct GPWSTests {
    static let zone = GPWSTarget(mode: .heartRate, low: 140, high: 160)
    static let pace = GPWSTarget(mode: .pace, paceSecondsPerKm: 360, toleranceSecondsPerKm: 15)

    /// The 18 km device test in a few samples: ten minutes moving at 150 bpm, three stationary samples
    /// falling 150 → 120 → 100, then moving at 150 again.
    static func restInTheMiddle(pace: Float = 300) -> [FlightSample] {
        var samples: [FlightSample] = []
        var meters: Float = 0
        for i in 1...20 {
            meters += 100
            samples.append(FlightSample(time: Float(i * 30), distance: meters, pace: pace, heartRate: 150))
        }
        for (i, hr) in [150, 120, 100].enumerated() {
            samples.append(FlightSample(time: Float(600 + (i + 1) * 30), distance: meters, pace: 0, heartRate: Float(hr)))
        }
        for i in 1...5 {
            meters += 100
            samples.append(FlightSample(time: Float(690 + i * 30), distance: meters, pace: pace, heartRate: 150))
        }
        return samples
    }

    static func decide(_ samples: [FlightSample], _ target: GPWSTarget, _ behaviour: GPWSBehaviour) -> [GPWSDecision] {
        var engine = GPWS(target: target, behaviour: behaviour)
        return samples.map { engine.evaluate($0) }
    }

    @Test func theFixKeepsTheStatusWhileStationary() {
        let trace = Self.decide(Self.restInTheMiddle(), Self.zone, .fixed)
        #expect(trace.allSatisfy { $0.status == .clear })
        #expect(trace.allSatisfy { $0.alert == nil })
        #expect(trace.filter(\.stationary).allSatisfy { !$0.decided })
        #expect(trace.filter { !$0.stationary }.allSatisfy { $0.decided })
    }

    @Test func legacyRaisesOneFalseSinkRateOnTheRest() {
        let trace = Self.decide(Self.restInTheMiddle(), Self.zone, .legacy)
        let alerts = trace.filter { $0.alert != nil }
        #expect(alerts.count == 1)
        #expect(alerts.first?.alert == .sinkRate)
        #expect(alerts.first?.stationary == true)
        // The second stationary sample (120 bpm) is the one.
        #expect(alerts.first?.time == 660)
        #expect(trace.last?.status == .clear)
    }

    @Test func paceModeIsClearInBothBehaviours() {
        for behaviour in GPWSBehaviour.allCases {
            let trace = Self.decide(Self.restInTheMiddle(pace: 360), Self.pace, behaviour)
            #expect(trace.allSatisfy { $0.status == .clear && $0.alert == nil }, "\(behaviour)")
        }
    }

    @Test func movingSamplesDecideByTheRules() {
        var engine = GPWS(target: Self.pace, behaviour: .fixed)
        #expect(engine.evaluate(FlightSample(time: 1, distance: 1, pace: 380, heartRate: 0)).status == .sinkRate)
        #expect(engine.evaluate(FlightSample(time: 2, distance: 2, pace: 375, heartRate: 0)).status == .clear)
        #expect(engine.evaluate(FlightSample(time: 3, distance: 3, pace: 340, heartRate: 0)).status == .overspeed)
        var zone = GPWS(target: Self.zone, behaviour: .fixed)
        #expect(zone.evaluate(FlightSample(time: 1, distance: 1, pace: 300, heartRate: 139)).status == .sinkRate)
        #expect(zone.evaluate(FlightSample(time: 2, distance: 2, pace: 300, heartRate: 161)).status == .overspeed)
        // No reading: the status stays.
        let none = zone.evaluate(FlightSample(time: 3, distance: 3, pace: 300, heartRate: 0))
        #expect(none.status == .overspeed && !none.decided)
        #expect(zone.evaluate(FlightSample(time: 4, distance: 4, pace: 300, heartRate: 160)).status == .clear)
    }

    @Test func anAlertPerTransitionIntoAWarningAtMost200() {
        var engine = GPWS(target: Self.zone, behaviour: .fixed)
        var alerts = 0
        // Staying in SINK RATE raises one; SINK RATE → OVERSPEED raises another.
        for (i, hr) in [130, 120, 110, 170, 170, 150, 130].enumerated() {
            if engine.evaluate(FlightSample(time: Float(i + 1), distance: 0, pace: 300, heartRate: Float(hr))).alert != nil { alerts += 1 }
        }
        #expect(alerts == 3)
        var flapping = GPWS(target: Self.zone, behaviour: .fixed)
        for i in 0..<1000 {
            _ = flapping.evaluate(FlightSample(time: Float(i + 1), distance: 0, pace: 300, heartRate: i % 2 == 0 ? 100 : 150))
        }
        #expect(flapping.alertCount == GPWS.maximumAlerts)
    }

    /// Section D's property, on the pure engine over 200 generated runs with stops: fixed never decides or
    /// alerts on a stationary sample; legacy alerts on a stationary sample exactly when the heart rate read
    /// there is under the zone while the status was not already SINK RATE.
    @Test func overTwoHundredGeneratedRuns() {
        var stationaryAlertsInLegacy = 0
        for seed in 1...200 {
            var generator = FlightGenerator(seed: UInt64(seed))
            let samples = generator.flight(endingAt: 1_795_953_600).samples
            #expect(samples.contains { $0.pace == 0 } || true)
            for decision in Self.decide(samples, Self.zone, .fixed) where decision.stationary {
                #expect(!decision.decided && decision.alert == nil, "seed \(seed) t \(decision.time)")
            }
            var before: GPWSStatus = .clear
            for (sample, decision) in zip(samples, Self.decide(samples, Self.zone, .legacy)) {
                if decision.stationary {
                    let expected = sample.heartRate > 0 && sample.heartRate < 140 && before != .sinkRate
                    #expect((decision.alert == .sinkRate) == expected, "seed \(seed) t \(decision.time)")
                    if decision.alert != nil { stationaryAlertsInLegacy += 1 }
                }
                before = decision.status
            }
        }
        // The generator's stops do cross under the zone: the property is not vacuous.
        #expect(stationaryAlertsInLegacy > 0)
    }

    @Test func targetsParseWithinTheirRanges() {
        #expect(GPWSTarget.parsePace("6:00") == 360)
        #expect(GPWSTarget.parsePace("2:00") == 120)
        #expect(GPWSTarget.parsePace("20:00") == 1200)
        // Minutes past 153 * 10^15 overflowed `minutes * 60` (a trap in `runway watch run sample --pace`).
        for bad in ["1:59", "20:01", "6", "6:0", "6:60", "a:bc", "-1:00", "", "+6:00", "6:+5", "9223372036854775807:00", "999999999999999999:00"] {
            #expect(GPWSTarget.parsePace(bad) == nil, "\(bad)")
        }
        #expect(GPWSTarget.formatPace(.nan) == "0:00")
        _ = GPWSTarget.formatPace(.infinity)
        #expect(GPWSTarget.parseZone("140-160")! == (140, 160))
        for bad in ["160-140", "140-140", "39-100", "100-221", "140", "a-b", "140-160-180"] { #expect(GPWSTarget.parseZone(bad) == nil, "\(bad)") }
    }
}

@Suite struct LiveRunTests {
    static let start: Double = 1_790_000_000

    @Test func aBadBatchIsRefusedWhole() {
        var run = LiveRun(id: "01938B2C-7A00-7000-8000-000000000000", startedAt: Self.start, target: GPWSTests.zone, behaviour: .fixed, startOrigin: .local)
        _ = run.apply([FlightSample(time: 30, distance: 100, pace: 300, heartRate: 150)])
        let cases: [[FlightSample]] = [
            [FlightSample(time: 60, distance: 200, pace: 300, heartRate: 150), FlightSample(time: 60, distance: 300, pace: 300, heartRate: 150)],
            [FlightSample(time: 60, distance: 50, pace: 300, heartRate: 150)],
            [FlightSample(time: 60, distance: 200, pace: 100, heartRate: 150)],
            [FlightSample(time: 60, distance: 200, pace: 300, heartRate: 251)],
            [FlightSample(time: 60, distance: 200, pace: 300, heartRate: 20)],
            [FlightSample(time: 20, distance: 200, pace: 300, heartRate: 150)],
            [FlightSample(time: .nan, distance: 200, pace: 300, heartRate: 150)],
            [],
        ]
        for batch in cases { #expect(run.problem(with: batch) != nil, "\(batch)") }
        #expect(run.problem(with: [FlightSample(time: 60, distance: 100, pace: 0, heartRate: 0)]) == nil)
    }

    @Test func theFlightIsBuiltFromTheSamples() throws {
        var run = LiveRun(id: "01938B2C-7A00-7000-8000-000000000000", startedAt: Self.start, target: GPWSTests.zone, behaviour: .legacy, startOrigin: .local)
        _ = run.apply(GPWSTests.restInTheMiddle())
        let flight = run.flight(endingAt: Self.start)
        #expect(flight.distanceKm == 2.5)
        #expect(flight.durationSeconds == 750)  // 840 s less the three 30 s stationary samples
        #expect(flight.averagePaceSecondsPerKm == 300)
        #expect(flight.averageHeartRate == 150)
        #expect(flight.endedAt == Self.start + 840)
        #expect(flight.alerts.count == 1)
        #expect(flight.alerts[0].at == Self.start + 660)
        #expect(flight.alerts[0].value == 120)
        #expect(FlightLimits.problem(with: flight) == nil)
        // Both decoders read the alerts back.
        #expect(try Flight(userInfo: flight.userInfo) == flight)
        let bytes = PropertyListCodec.encode(flight.userInfo)
        #expect(bytes.withUnsafeBytes { Flight(encodedUserInfo: $0) } == flight)
    }

    @Test func theRunIsRebuiltFromItsBatchesWithTheSameAlerts() throws {
        let (_, database) = try makeTemporaryStore("gpws", FlightStore.migrations)
        let store = LiveRunStore(database: database)
        var run = LiveRun(id: "01938B2C-7A00-7000-8000-000000000000", startedAt: Self.start, target: GPWSTests.zone, behaviour: .legacy, startOrigin: .local)
        try store.begin(run)
        let samples = GPWSTests.restInTheMiddle()
        for batch in [Array(samples[0..<21]), Array(samples[21...])] {
            try store.append(batch)
            _ = run.apply(batch)
        }
        let loaded = try #require(try store.load())
        #expect(loaded.samples == run.samples)
        #expect(loaded.alerts == run.alerts)
        #expect(loaded.status == run.status)
        try store.clear()
        #expect(try store.load() == nil)
    }

    @Test func flightsWithoutAlertsStayValidAndStoredAlertsGoWithTheirFlight() throws {
        let (_, database) = try makeTemporaryStore("gpws", FlightStore.migrations)
        let flights = FlightStore(database: database)
        var generator = FlightGenerator(seed: 5)
        let old = generator.flight(distanceKm: 3, endingAt: Self.start)
        var userInfo = old.userInfo
        userInfo["alerts"] = nil
        #expect(try Flight(userInfo: userInfo).alerts.isEmpty)
        var run = LiveRun(id: "01938B2C-7A00-7000-8000-000000000000", startedAt: Self.start, target: GPWSTests.zone, behaviour: .legacy, startOrigin: .local)
        _ = run.apply(GPWSTests.restInTheMiddle())
        let alerted = run.flight(endingAt: Self.start)
        try flights.insert(old)
        try flights.insert(alerted)
        #expect(try flights.insert(alerted) == nil)  // a duplicate stores no alerts
        #expect(try flights.alertCount() == 1)
        #expect(try flights.flight(id: alerted.id)?.flight.alerts == alerted.alerts)
        #expect(try flights.delete(id: alerted.id))
        #expect(try flights.alertCount() == 0)
    }
}
