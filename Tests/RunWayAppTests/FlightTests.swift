import Connectivity
import Testing
import PropertyLists
@testable import RunWayApp
@testable import RunWayDomain

@Suite struct FlightTests {
    @Test func flightsSurviveTheUserInfoRoundTrip() throws {
        var generator = FlightGenerator(seed: 7)
        let flight = generator.flight(distanceKm: 5, endingAt: 1_795_953_600)
        let decoded = try Flight(userInfo: flight.userInfo)
        #expect(decoded == flight)
        let bytes = PropertyListCodec.encode(flight.userInfo)
        #expect(try Flight(userInfo: PropertyListCodec.decodeDictionary(bytes)) == flight)
    }

    @Test func otherUserInfoIsNotAFlight() {
        #expect(throws: Flight.DecodingError.notAFlight) { try Flight(userInfo: ["type": .string("note")]) }
        var generator = FlightGenerator(seed: 1)
        var broken = generator.flight(distanceKm: 3, endingAt: 0).userInfo
        broken["distanceKm"] = .string("far")
        #expect(throws: Flight.DecodingError.missingField("distanceKm")) { try Flight(userInfo: broken) }
    }

    @Test func samplesPackAndUnpack() {
        let samples = [
            FlightSample(time: 30, distance: 85.5, pace: 351, heartRate: 141),
            FlightSample(time: 60, distance: 171, pace: 0, heartRate: 120),
        ]
        let packed = Flight.pack(samples)
        #expect(packed.count == 32)
        #expect(Flight.unpack(packed) == samples)
    }

    @Test func generatedRunsLookLikeRuns() {
        var generator = FlightGenerator(seed: 42)
        for _ in 0..<200 {
            let flight = generator.flight(endingAt: 1_795_953_600)
            let samples = flight.samples
            #expect((3...12).contains(flight.distanceKm))
            #expect(flight.endedAt - flight.startedAt >= flight.durationSeconds)
            #expect((240...600).contains(flight.averagePaceSecondsPerKm))
            #expect((90...190).contains(flight.averageHeartRate))
            #expect(abs(Double(samples.last!.distance) - flight.distanceKm * 1000) < 1)
            // Monotonic time and distance.
            #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time && $0.distance <= $1.distance })
            // Warm-up: the first kilometre is slower than the average.
            #expect(Double(samples[1].pace) > flight.averagePaceSecondsPerKm * 0.98)
            #expect(PropertyListCodec.encode(flight.userInfo).count < 16 * 1024)
        }
    }

    @Test func someRunsHaveStops() {
        var generator = FlightGenerator(seed: 3)
        let flights = (0..<50).map { _ in generator.flight(endingAt: 0) }
        let withStops = flights.filter { $0.samples.contains { $0.pace == 0 } }
        #expect(withStops.count > 10 && withStops.count < 50)
    }

    @Test func theSameSeedGivesTheSameRuns() {
        var a = FlightGenerator(seed: 99), b = FlightGenerator(seed: 99)
        #expect(a.flights(count: 5, distanceKm: nil, now: 1e9) == b.flights(count: 5, distanceKm: nil, now: 1e9))
    }

    @Test func aSeriesIsOldestFirstEndingNow() {
        var generator = FlightGenerator(seed: 5)
        let flights = generator.flights(count: 30, distanceKm: 5, now: 2e9)
        #expect(flights.last!.endedAt == 2e9)
        #expect(zip(flights, flights.dropFirst()).allSatisfy { $0.startedAt < $1.startedAt })
        #expect(Set(flights.map(\.id)).count == 30)
    }
}
