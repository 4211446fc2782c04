import Posix

/// The valid range of every field of a flight, decided once.
///
/// A flight outside these ranges is refused where it is accepted: by the sending app's
/// `transferUserInfo` (7010, `payloadUnsupportedTypes`, with the reason) and by the receiving app, which
/// has the session quarantine it instead of storing it. Whatever is stored is therefore something every
/// formatter and every conversion can take; the formatters are total anyway, for stores written before
/// these limits existed or edited by hand.
public enum FlightLimits {
    /// 2001-01-01T00:00:00Z, where Apple's reference date starts.
    public static let earliestTime: Double = 978_307_200
    /// 2100-01-01T00:00:00Z (exclusive).
    public static let latestTime: Double = 4_102_444_800
    /// No run lasts longer than a week, start to end (the longest ultra-marathons take about six days).
    public static let longestRun: Double = 7 * 86_400
    /// Farther than anyone runs in a week.
    public static let longestDistanceKm: Double = 1_000
    /// Ten hours per kilometre is walking at its slowest; 0 means "no pace" (a run with no moving time).
    public static let slowestPace: Double = 36_000
    /// Beats per minute; 0 means "not measured".
    public static let highestHeartRate: Double = 300
    /// Samples, packed: 16 bytes each. A userInfo is at most 64 KiB, so this is never the binding limit.
    public static let mostSamples = 4096
    /// Distance a sample can report, in metres.
    public static let longestSampleMeters: Double = longestDistanceKm * 1000

    /// Why `flight` is out of range, or nil if every field is valid: each field against its range
    /// (declared with the field, `Flight.fields`), then the rules between fields.
    public static func problem(with flight: Flight) -> Flight.DecodingError? {
        for field in Flight.fields {
            switch field.kind {
            case .id:
                if !isFlightID(flight.id) { return .outOfRange(field.name, "must be an upper-case UUID such as 01938B2C-7A00-7000-8000-000000000000") }
            case let .time(offset):
                if let problem = time(field, flight.number(at: offset)) { return problem }
            case let .number(offset, range, _):
                if let problem = within(field, flight.number(at: offset), range) { return problem }
            case .mode:
                break
            case .samples:
                if let problem = samplesProblem(flight.packedSamples) { return problem }
            case .alerts:
                if let why = FlightAlert.problem(flight.alerts) { return .outOfRange(field.name, why) }
            }
        }
        let elapsed = flight.endedAt - flight.startedAt
        guard elapsed >= 0 else { return .outOfRange("endedAt", "is before startedAt") }
        guard elapsed <= longestRun else { return .outOfRange("endedAt", "is more than 7 days after startedAt") }
        guard flight.durationSeconds <= elapsed + 1 else {
            return .outOfRange("durationSeconds", "is longer than the time from startedAt to endedAt")
        }
        return nil
    }

    /// Whether `id` is a flight id as the app writes them and as `flight` and `delete` take them: a UUID
    /// in upper case (`UUID().uuidString`).
    public static func isFlightID(_ id: String) -> Bool {
        Identifier.isUUID(id) && !id.utf8.contains(where: { (0x61...0x66).contains($0) })
    }

    static func time(_ field: FlightField, _ value: Double) -> Flight.DecodingError? {
        guard value.isFinite, value >= earliestTime, value < latestTime else {
            return .outOfRange(field.name, "must be between 2001-01-01 and 2100-01-01")
        }
        return nil
    }

    static func within(_ field: FlightField, _ value: Double, _ range: ClosedRange<Double>) -> Flight.DecodingError? {
        guard value.isFinite, range.contains(value) else {
            return .outOfRange(field.name, "must be between \(format(range.lowerBound)) and \(format(range.upperBound))")
        }
        return nil
    }

    /// Each sample: time since the start within a week, distance within `longestSampleMeters`, pace and
    /// heart rate as for the whole flight; all finite.
    static func samplesProblem(_ packed: [UInt8]) -> Flight.DecodingError? {
        guard packed.count % FlightSample.packedSize == 0 else {
            return .outOfRange("samples", "is \(packed.count) bytes, not a whole number of 16-byte samples")
        }
        guard packed.count / FlightSample.packedSize <= mostSamples else {
            return .outOfRange("samples", "has more than \(mostSamples) samples")
        }
        let limits = sampleLimits
        return packed.withUnsafeBytes { raw -> Flight.DecodingError? in
            var offset = 0
            while offset < raw.count {
                // A sample's four little-endian floats checked at once; a sample that fails is looked at
                // field by field, for the message. (Per flight this was two arrays allocated and a bounds
                // check per value: ~4,900 instructions of the phone's ~67,000.)
                #if _endian(little)
                    let sample = raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                    // `!(0 <= v && v <= limit)` is also true for NaN.
                    if !all((sample .>= 0) .& (sample .<= limits)), let problem = sampleProblem(raw, at: offset) {
                        return problem
                    }
                #else
                    if let problem = sampleProblem(raw, at: offset) { return problem }
                #endif
                offset += FlightSample.packedSize
            }
            return nil
        }
    }

    /// Each field of a sample, in order: time, distance, pace, heart rate.
    private static let sampleLimits = SIMD4<Float>(Float(longestRun), Float(longestSampleMeters), Float(slowestPace), Float(highestHeartRate))

    /// The first field of the sample at `offset` that is out of range, field by field.
    private static func sampleProblem(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Flight.DecodingError? {
        for (field, name) in ["time", "distance", "pace", "heartRate"].enumerated() {
            let value = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4 * field, as: UInt32.self)))
            if !(value >= 0 && value <= sampleLimits[field]) {
                return .outOfRange("samples", "sample \(offset / FlightSample.packedSize) has \(name) out of range")
            }
        }
        return nil
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
