import Posix
import PropertyLists

/// How a flight was flown: to a target pace, or to a heart-rate zone (a *Mission Flight*).
public enum FlightMode: String, Sendable, CaseIterable, Codable {
    case pace
    case heartRate
}

/// One point of a flight's charts, downsampled from the workout.
public struct FlightSample: Equatable, Sendable {
    /// Seconds since the start.
    public var time: Float
    /// Metres run so far.
    public var distance: Float
    /// Seconds per kilometre at that moment (0 while stopped).
    public var pace: Float
    /// Beats per minute.
    public var heartRate: Float

    public init(time: Float, distance: Float, pace: Float, heartRate: Float) {
        self.time = time
        self.distance = distance
        self.pace = pace
        self.heartRate = heartRate
    }

    public static let packedSize = 16
}

/// A run: what the Flight Summary shows, and the samples behind its charts.
///
/// Samples are kept packed (four little-endian `Float32`s each) so a flight moves through the outbox,
/// the link and the store as one blob; they are unpacked only to be shown.
public struct Flight: Equatable, Sendable {
    public var id: String
    /// Seconds since 1970.
    public var startedAt: Double
    public var endedAt: Double
    public var distanceKm: Double
    /// Moving time, stops excluded.
    public var durationSeconds: Double
    public var averagePaceSecondsPerKm: Double
    public var averageHeartRate: Double
    public var mode: FlightMode
    public var packedSamples: [UInt8]
    /// The GPWS warnings raised during the run, oldest first (none from a watch older than the field).
    public var alerts: [FlightAlert]

    public init(
        id: String, startedAt: Double, endedAt: Double, distanceKm: Double, durationSeconds: Double,
        averagePaceSecondsPerKm: Double, averageHeartRate: Double, mode: FlightMode, packedSamples: [UInt8],
        alerts: [FlightAlert] = []
    ) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.distanceKm = distanceKm
        self.durationSeconds = durationSeconds
        self.averagePaceSecondsPerKm = averagePaceSecondsPerKm
        self.averageHeartRate = averageHeartRate
        self.mode = mode
        self.packedSamples = packedSamples
        self.alerts = alerts
    }

    // MARK: - Samples

    public var samples: [FlightSample] { Self.unpack(packedSamples) }

    public static func pack(_ samples: [FlightSample]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * FlightSample.packedSize)
        for sample in samples {
            for value in [sample.time, sample.distance, sample.pace, sample.heartRate] {
                let bits = value.bitPattern
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
                bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
            }
        }
        return bytes
    }

    public static func unpack(_ bytes: [UInt8]) -> [FlightSample] {
        let count = bytes.count / FlightSample.packedSize
        var samples: [FlightSample] = []
        samples.reserveCapacity(count)
        func float(_ offset: Int) -> Float {
            Float(
                bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                    | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24)
        }
        for i in 0..<count {
            let base = i * FlightSample.packedSize
            samples.append(FlightSample(time: float(base), distance: float(base + 4), pace: float(base + 8), heartRate: float(base + 12)))
        }
        return samples
    }
}

// MARK: - As a userInfo transfer

extension Flight {
    /// The `type` value that marks a userInfo as a finished flight.
    public static let userInfoType = "flight"

    /// The dictionary the watch passes to `transferUserInfo`: `type` and every field (`Flight.fields`).
    public var userInfo: UserInfo {
        var userInfo: UserInfo = ["type": .string(Self.userInfoType)]
        for field in Self.fields {
            // A run without alerts carries no `alerts` key, exactly as a flight from a watch older than
            // the field: the same bytes, and nothing more for the phone's hot path to read.
            if case .alerts = field.kind, alerts.isEmpty { continue }
            userInfo[field.name] = value(of: field)
        }
        return userInfo
    }

    public enum DecodingError: Error, Equatable, CustomStringConvertible {
        case notAFlight
        case missingField(String)
        /// The field is there but outside its valid range (`FlightLimits`).
        case outOfRange(String, String)

        public var description: String {
            switch self {
            case .notAFlight: "the userInfo is not a flight"
            case let .missingField(name): "the flight's \(name) is missing or of the wrong type"
            case let .outOfRange(name, why): "the flight's \(name) \(why)"
            }
        }
    }

    /// The one validator both apps share: nil if `userInfo` is not a flight or is a valid one, else why
    /// it is not. The sending app's session calls it in `transferUserInfo` (7010 with the reason); the
    /// receiving app decodes with the same rules and has anything else quarantined.
    @Sendable public static func problem(inUserInfo userInfo: UserInfo) -> String? {
        do {
            _ = try Flight(userInfo: userInfo)
            return nil
        } catch .notAFlight {
            return nil
        } catch {
            return error.description
        }
    }

    /// A flight from a received userInfo; `notAFlight` if it is some other kind of userInfo. A field
    /// that is missing or of the wrong kind is reported before any value out of range.
    public init(userInfo: UserInfo) throws(DecodingError) {
        guard userInfo["type"]?.stringValue == Self.userInfoType else { throw .notAFlight }
        var flight = Flight.blank
        for field in Self.fields {
            if let value = userInfo[field.name] {
                guard flight.set(field, value) else { throw .missingField(field.name) }
            } else if field.required {
                throw .missingField(field.name)
            }
        }
        if let problem = FlightLimits.problem(with: flight) { throw problem }
        self = flight
    }
}
