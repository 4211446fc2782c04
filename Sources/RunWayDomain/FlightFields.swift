import Posix
import PropertyLists

/// A flight's fields, declared once: the userInfo key (also the JSON key), the SQL column, the kind of
/// value and its valid range. The encoder (`Flight.userInfo`), both decoders (`Flight(userInfo:)` and the
/// phone's in-place `Flight(encodedUserInfo:)`), the row mapping (`FlightStore`), the JSON form
/// (`StoredFlight.writeJSON`) and the range checks (`FlightLimits`) are loops over `Flight.fields`.
///
/// Adding a field is a stored property on `Flight`, one entry here, and a migration adding its column
/// (`docs/architecture.md`, "Adding a flight field").
public struct FlightField: Sendable {
    public enum Kind: Sendable {
        /// The flight's id (`FlightLimits.isFlightID`).
        case id
        /// `FlightMode`, by its raw value.
        case mode
        /// A moment: a property-list date, an ISO 8601 string in JSON, seconds since 1970 in SQL.
        case time(offset: Int)
        /// A number with its valid range and how many decimals JSON shows.
        case number(offset: Int, range: ClosedRange<Double>, decimals: Int)
        /// The packed samples: data in a userInfo, a row of their own in SQL, JSON only on request.
        case samples
        /// The GPWS alerts: an array of dictionaries in a userInfo, rows of `alerts` in SQL.
        case alerts

        /// A time field: `\.startedAt`.
        static func time(_ path: KeyPath<Flight, Double>) -> Kind { .time(offset: Self.offset(path)) }

        /// A number field with its range: `\.distanceKm`.
        static func number(_ path: KeyPath<Flight, Double>, range: ClosedRange<Double>, decimals: Int) -> Kind {
            .number(offset: Self.offset(path), range: range, decimals: decimals)
        }

        /// Where a stored `Double` property lives in a `Flight`: the hot path reads and writes numbers
        /// there directly, with no key path and no reference counting (`FlightField` is a plain value).
        private static func offset(_ path: KeyPath<Flight, Double>) -> Int {
            guard let offset = MemoryLayout<Flight>.offset(of: path) else { fatalError("\(path) is not a stored property of Flight") }
            return offset
        }
    }

    /// The userInfo and JSON key.
    public let key: StaticString
    /// The column in `flights` (nil: stored elsewhere).
    public let column: StaticString?
    public let kind: Kind
    /// Whether a flight must carry it. A field added later is optional, so that flights from an older
    /// watch stay valid: missing, it takes its zero value (0, empty).
    public let required: Bool

    init(_ key: StaticString, column: StaticString?, _ kind: Kind, required: Bool = true) {
        self.key = key
        self.column = column
        self.kind = kind
        self.required = required
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
        FlightField(
            "averagePaceSecondsPerKm", column: "avg_pace",
            .number(\.averagePaceSecondsPerKm, range: 0...FlightLimits.slowestPace, decimals: 1)),
        FlightField("averageHeartRate", column: "avg_hr", .number(\.averageHeartRate, range: 0...FlightLimits.highestHeartRate, decimals: 1)),
        FlightField("mode", column: "mode", .mode),
        FlightField("samples", column: nil, .samples, required: false),
        FlightField("alerts", column: nil, .alerts, required: false),
    ]

    /// The fields stored as columns of `flights`, in column order.
    static let columnFields: [FlightField] = fields.filter { $0.column != nil }

    /// Field indices by key length, `candidatesPerLength` slots per length (-1: none): the in-place
    /// reader compares a key with the one or two fields of its length.
    static let candidatesPerLength = 4
    static let fieldsByKeyLength: [Int] = {
        let longest = fields.map(\.key.utf8CodeUnitCount).max() ?? 0
        var table = [Int](repeating: -1, count: (longest + 1) * candidatesPerLength)
        for (index, field) in fields.enumerated() {
            let base = field.key.utf8CodeUnitCount * candidatesPerLength
            guard let free = (base..<base + candidatesPerLength).first(where: { table[$0] < 0 }) else {
                fatalError("more than \(candidatesPerLength) flight fields have keys of \(field.key.utf8CodeUnitCount) characters")
            }
            table[free] = index
        }
        return table
    }()

    /// The index of the field whose key is `key`, if any.
    @inline(__always)
    static func fieldIndex(_ key: UnsafeRawBufferPointer, fields: UnsafeBufferPointer<FlightField>, table: UnsafeBufferPointer<Int>) -> Int? {
        let base = key.count * candidatesPerLength
        guard base < table.count else { return nil }
        for slot in base..<base + candidatesPerLength {
            let index = table[slot]
            if index < 0 { return nil }
            if key.equals(fields[index].key) { return index }
        }
        return nil
    }

    // MARK: - Numbers in place

    @inline(__always)
    func number(at offset: Int) -> Double {
        withUnsafePointer(to: self) { UnsafeRawPointer($0).load(fromByteOffset: offset, as: Double.self) }
    }

    @inline(__always)
    mutating func setNumber(_ value: Double, at offset: Int) {
        withUnsafeMutablePointer(to: &self) { UnsafeMutableRawPointer($0).storeBytes(of: value, toByteOffset: offset, as: Double.self) }
    }

    /// A flight with every field at its zero value, to be filled in by a decoder.
    static var blank: Flight {
        Flight(
            id: "", startedAt: 0, endedAt: 0, distanceKm: 0, durationSeconds: 0, averagePaceSecondsPerKm: 0,
            averageHeartRate: 0, mode: .pace, packedSamples: [])
    }

    // MARK: - One field, each way

    /// `field`'s value as a property-list value.
    func value(of field: FlightField) -> PropertyListValue {
        switch field.kind {
        case .id: .string(id)
        case .mode: .string(mode.rawValue)
        case let .time(offset): .date(number(at: offset))
        case let .number(offset, _, _): .real(number(at: offset))
        case .samples: .data(packedSamples)
        case .alerts: .array(alerts.map(\.propertyList))
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
        case let .time(offset), let .number(offset, _, _):
            guard let number = value.doubleValue, number.isFinite else { return false }
            setNumber(number, at: offset)
        case .samples:
            guard let bytes = value.dataValue else { return false }
            packedSamples = bytes
        case .alerts:
            guard let list = FlightAlert.decodeList(value) else { return false }
            alerts = list
        }
        return true
    }

    /// Sets `field` to its zero value (a field a flight may lack).
    mutating func clear(_ field: FlightField) {
        switch field.kind {
        case .id: id = ""
        case .mode: mode = .pace
        case let .time(offset), let .number(offset, _, _): setNumber(0, at: offset)
        case .samples: packedSamples = []
        case .alerts: alerts = []
        }
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
        case (.time(let offset), _), (.number(let offset, _, _), _):
            guard let number = value.number, number.isFinite else { return false }
            setNumber(number, at: offset)
        case (.samples, .data(let raw)):
            packedSamples = Array(raw)
        case (.alerts, .container):
            guard let list = value.decodedContainer, let decoded = FlightAlert.decodeList(list) else { return false }
            alerts = decoded
        default:
            return false
        }
        return true
    }
}
