import Connectivity

/// A flight's fields, declared once: the userInfo key (also the JSON key), the SQL column, the kind of
/// value and its valid range. The encoder (`Flight.userInfo`), both decoders (`Flight(userInfo:)` and the
/// phone's in-place `Flight(encodedUserInfo:)`), the row mapping (`FlightStore`), the JSON form
/// (`StoredFlight.writeJSON`) and the range checks (`FlightLimits`) are loops over `Flight.fields`.
///
/// Adding a field is a stored property on `Flight`, one entry here, and a migration adding its column
/// (`docs/architecture.md`, "Adding a flight field").
public struct FlightField: @unchecked Sendable {
    public enum Kind {
        /// The flight's id (`FlightLimits.isFlightID`).
        case id
        /// `FlightMode`, by its raw value.
        case mode
        /// A moment: a property-list date, an ISO 8601 string in JSON, seconds since 1970 in SQL.
        case time(WritableKeyPath<Flight, Double>)
        /// A number with its valid range and how many decimals JSON shows.
        case number(WritableKeyPath<Flight, Double>, range: ClosedRange<Double>, decimals: Int)
        /// The packed samples: data in a userInfo, a row of their own in SQL, JSON only on request.
        case samples
    }

    /// The userInfo and JSON key.
    public let key: StaticString
    /// The column in `flights` (nil: stored elsewhere).
    public let column: String?
    public let kind: Kind
    /// What a flight without this field gets (nil: the field is required). A field added later must
    /// have one, so that flights from an older watch stay valid.
    public let absent: PropertyListValue?

    init(_ key: StaticString, column: String?, _ kind: Kind, absent: PropertyListValue? = nil) {
        self.key = key
        self.column = column
        self.kind = kind
        self.absent = absent
    }

    public var name: String { key.description }
}

extension Flight {
    /// Every field of a flight, in the order of the `flights` table's columns.
    public static let fields: [FlightField] = [
        FlightField("id", column: "id", .id),
        FlightField("startedAt", column: "started_at", .time(\.startedAt)),
        FlightField("endedAt", column: "ended_at", .time(\.endedAt)),
        FlightField("distanceKm", column: "distance_km", .number(\.distanceKm, range: 0...FlightLimits.longestDistanceKm, decimals: 3)),
        FlightField("durationSeconds", column: "duration_s", .number(\.durationSeconds, range: 0...FlightLimits.longestRun, decimals: 1)),
        FlightField("averagePaceSecondsPerKm", column: "avg_pace",
                    .number(\.averagePaceSecondsPerKm, range: 0...FlightLimits.slowestPace, decimals: 1)),
        FlightField("averageHeartRate", column: "avg_hr", .number(\.averageHeartRate, range: 0...FlightLimits.highestHeartRate, decimals: 1)),
        FlightField("mode", column: "mode", .mode),
        FlightField("samples", column: nil, .samples, absent: .data([])),
    ]

    /// The fields stored as columns of `flights`, in column order.
    static let columnFields: [FlightField] = fields.filter { $0.column != nil }

    /// Field indices by key length: the in-place reader compares a key with one or two candidates.
    static let fieldsByKeyLength: [[Int]] = {
        let longest = fields.map(\.key.utf8CodeUnitCount).max() ?? 0
        var table = [[Int]](repeating: [], count: longest + 1)
        for (index, field) in fields.enumerated() { table[field.key.utf8CodeUnitCount].append(index) }
        return table
    }()

    /// The index of the field whose key is `key`, if any.
    @inline(__always)
    static func fieldIndex(_ key: UnsafeRawBufferPointer) -> Int? {
        guard key.count < fieldsByKeyLength.count else { return nil }
        for index in fieldsByKeyLength[key.count] where key.equals(fields[index].key) { return index }
        return nil
    }

    /// A flight with every field at its zero value, to be filled in by a decoder.
    static var blank: Flight {
        Flight(id: "", startedAt: 0, endedAt: 0, distanceKm: 0, durationSeconds: 0, averagePaceSecondsPerKm: 0,
               averageHeartRate: 0, mode: .pace, packedSamples: [])
    }

    // MARK: - One field, each way

    /// `field`'s value as a property-list value.
    func value(of field: FlightField) -> PropertyListValue {
        switch field.kind {
        case .id: .string(id)
        case .mode: .string(mode.rawValue)
        case let .time(path): .date(self[keyPath: path])
        case let .number(path, _, _): .real(self[keyPath: path])
        case .samples: .data(packedSamples)
        }
    }

    /// Sets `field` from a property-list value; false if the value is of the wrong kind (a string where a
    /// number belongs, an unknown mode, a non-finite number).
    mutating func set(_ field: FlightField, _ value: PropertyListValue) -> Bool {
        switch field.kind {
        case .id:
            guard let text = value.stringValue else { return false }
            id = text
        case .mode:
            guard let text = value.stringValue, let parsed = FlightMode(rawValue: text) else { return false }
            mode = parsed
        case let .time(path), let .number(path, _, _):
            guard let number = value.doubleValue, number.isFinite else { return false }
            self[keyPath: path] = number
        case .samples:
            guard let bytes = value.dataValue else { return false }
            packedSamples = bytes
        }
        return true
    }

    /// Sets `field` from a value read in place; false if it is of the wrong kind.
    @inline(__always)
    mutating func set(_ field: FlightField, encoded value: EncodedDictionary.Value) -> Bool {
        switch (field.kind, value) {
        case (.id, .string(let raw)):
            id = String(decoding: raw, as: UTF8.self)
        case (.mode, .string(let raw)):
            guard let parsed = FlightMode(rawValue: String(decoding: raw, as: UTF8.self)) else { return false }
            mode = parsed
        case (.time(let path), _), (.number(let path, _, _), _):
            guard let number = value.number, number.isFinite else { return false }
            self[keyPath: path] = number
        case (.samples, .data(let raw)):
            packedSamples = Array(raw)
        default:
            return false
        }
        return true
    }
}
