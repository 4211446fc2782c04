import Control
import Connectivity
import JSONText
import Posix
import Testing
import PropertyLists
@testable import RunWayApp
@testable import RunWayDomain

/// Every numeric field of a flight, at every extreme: the validator decides once (both decoding paths
/// agree with it), and nothing that formats a flight traps, whatever the value.
@Suite struct FlightLimitsTests {
    static let extremes: [Double] = [
        0, -0.0, -1, 1, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan,
        9.3e18, -9.3e18, 978_307_199, 978_307_200, 4_102_444_799, 4_102_444_800, 604_800, 604_801, 36_000, 36_001, 300, 301,
        1000, 1000.5, Double(Float.greatestFiniteMagnitude), 1e-300,
    ]
    static let fields = ["startedAt", "endedAt", "distanceKm", "durationSeconds", "averagePaceSecondsPerKm", "averageHeartRate"]

    func fast(_ bytes: [UInt8]) -> Flight? { bytes.withUnsafeBytes { Flight(encodedUserInfo: $0) } }

    func base() -> Flight {
        var generator = FlightGenerator(seed: 5)
        return generator.flight(distanceKm: 5, endingAt: 1.8e9)
    }

    func with(_ flight: Flight, _ field: String, _ value: Double) -> Flight {
        var copy = flight
        switch field {
        case "startedAt": copy.startedAt = value
        case "endedAt": copy.endedAt = value
        case "distanceKm": copy.distanceKm = value
        case "durationSeconds": copy.durationSeconds = value
        case "averagePaceSecondsPerKm": copy.averagePaceSecondsPerKm = value
        default: copy.averageHeartRate = value
        }
        return copy
    }

    /// Formats a flight every way the daemons and the CLI do; trapping is the failure.
    func formatEverything(_ flight: Flight) {
        var writer = JSONWriter()
        StoredFlight(flight: flight, arrival: 1).writeJSON(to: &writer, includeSamples: true)
        _ = try? JSONValue(parsing: writer.bytes)
        _ = flight.userInfo.json
        let calendar = LogbookCalendar(firstWeekday: .monday, utcOffset: LogbookCalendar.localUTCOffset)
        _ = calendar.localTime(of: flight.startedAt)
        _ = calendar.weekStart(of: calendar.date(of: flight.endedAt))
        _ = Timestamp.iso8601(flight.startedAt, milliseconds: true)
        _ = FlightAnalysis(samples: flight.samples)
        _ = LogbookGrouping.group(
            [StoredFlight(flight: flight, arrival: 1)], calendar: calendar,
            startedAt: { $0.flight.startedAt }, distanceKm: { $0.flight.distanceKm })
    }

    @Test func theGeneratorsFlightsAreValid() {
        var generator = FlightGenerator(seed: 3)
        for flight in generator.flights(count: 300, distanceKm: nil, now: 1.8e9) {
            #expect(FlightLimits.problem(with: flight) == nil, "\(flight)")
            #expect(Flight.problem(inUserInfo: flight.userInfo) == nil)
        }
    }

    @Test(arguments: fields)
    func everyValueOfAFieldIsEitherValidOrRefusedAndNeverTraps(field: String) {
        let original = base()
        var refused = 0
        // The two times are valid only together: include the original pair's values too.
        let values = Self.extremes + [original.startedAt, original.endedAt]
        for value in values {
            let flight = with(original, field, value)
            formatEverything(flight)
            let problem = FlightLimits.problem(with: flight)
            let userInfo = flight.userInfo
            let bytes = PropertyListCodec.encode(userInfo)
            // One rule: the validator, the general decoder and the phone's fast path agree.
            #expect((Flight.problem(inUserInfo: userInfo) == nil) == (problem == nil), "\(field)=\(value)")
            #expect((fast(bytes) == nil) == (problem != nil), "\(field)=\(value)")
            if problem != nil { refused += 1 }
        }
        // Both sides of the range are exercised for every field.
        #expect(refused > 0 && refused < values.count)
    }

    @Test func samplesOutOfRangeAreRefusedAndStillFormat() {
        let original = base()
        var bad = original
        let floats: [Float] = [.nan, .infinity, -1, .greatestFiniteMagnitude, 3e38]
        for (index, value) in floats.enumerated() {
            bad.packedSamples = original.packedSamples
            let offset = index % 4 * 4 + 16 * (index % 3)
            let bits = value.bitPattern
            for byte in 0..<4 { bad.packedSamples[offset + byte] = UInt8(truncatingIfNeeded: bits >> (8 * byte)) }
            formatEverything(bad)
            #expect(FlightLimits.problem(with: bad) != nil, "sample value \(value)")
        }
        bad.packedSamples = Array(original.packedSamples.dropLast(3))
        #expect(FlightLimits.problem(with: bad) != nil)
        formatEverything(bad)
    }

    /// The samples are checked four values at a time: the same verdict and the same message as one value
    /// at a time (what this test does), for samples made of every edge of every field's range.
    @Test func samplesCheckedAtOnceAgreeWithOneValueAtATime() {
        let limits: [Float] = [
            Float(FlightLimits.longestRun), Float(FlightLimits.longestSampleMeters), Float(FlightLimits.slowestPace),
            Float(FlightLimits.highestHeartRate),
        ]
        let names = ["time", "distance", "pace", "heartRate"]
        func edges(_ limit: Float) -> [Float] {
            [0, -0.0, limit, limit.nextUp, limit.nextDown, -Float.leastNonzeroMagnitude, .nan, -.nan, .infinity, -.infinity, 1, -1]
        }
        func expected(_ values: [Float]) -> String? {
            for (index, value) in values.enumerated() where !(value >= 0 && value <= limits[index % 4]) {
                return "sample \(index / 4) has \(names[index % 4]) out of range"
            }
            return nil
        }
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for _ in 0..<2000 {
            let count = Int.random(in: 1...6, using: &generator) * 4
            let values = (0..<count).map { index -> Float in
                Int.random(in: 0..<4, using: &generator) == 0
                    ? edges(limits[index % 4]).randomElement(using: &generator)!
                    : Float.random(in: 0...limits[index % 4], using: &generator)
            }
            var packed: [UInt8] = []
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { packed += $0 } }
            let problem = FlightLimits.samplesProblem(packed)
            let want = expected(values)
            if want != nil { refused += 1 }
            #expect(
                problem.map { "\($0)" }?.contains(want ?? "\u{0}") ?? (want == nil), "\(values): \(String(describing: problem)) against \(want ?? "accepted")")
        }
        #expect(refused > 100 && refused < 1900, "both verdicts exercised: \(refused) refused")
    }

    @Test func idsAreWhatFlightAndDeleteTake() {
        let flight = base()
        #expect(FlightLimits.isFlightID(flight.id))
        for id in ["", "not-a-uuid", flight.id.lowercased(), flight.id + "0", String(flight.id.dropLast())] {
            var copy = flight
            copy.id = id
            #expect(FlightLimits.problem(with: copy) != nil, "\(id)")
            #expect(fast(PropertyListCodec.encode(copy.userInfo)) == nil)
        }
    }

    @Test func theSendersDepthCheckIsTheDecodersLimit() {
        for depth in 1...(PropertyListCodec.maximumDepth + 4) {
            var value: PropertyListValue = .integer(1)
            for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
            let userInfo: UserInfo = ["v": value]
            let decodes = (try? PropertyListCodec.decodeDictionary(PropertyListCodec.encode(userInfo))) != nil
            #expect(decodes == (PropertyListCodec.undecodableReason(userInfo) == nil), "depth \(depth)")
        }
    }
}
