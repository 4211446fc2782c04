import JSONText
import Posix
import PropertyLists
import Storage

/// A record declared once, as a `Codable` struct (`FlightAlert`), in the three forms the app keeps it
/// in: a property-list dictionary (inside its flight's userInfo), a row whose columns are its keys, and
/// the JSON `--json` prints, its keys in declaration order. `JSONValueEncoder.fields` gives the fields;
/// what their Swift types do not say — which numbers are moments, how many decimals JSON shows — the
/// record's format says, by key.
struct RecordFormat: Sendable {
    /// Seconds since 1970: a property-list date, ISO 8601 in JSON, a REAL in a row.
    let moments: Set<String>
    /// How many decimals JSON shows of a number (every one it has, if not named).
    let decimals: [String: Int]

    init(moments: Set<String> = [], decimals: [String: Int] = [:]) {
        self.moments = moments
        self.decimals = decimals
    }

    /// `record`'s fields in declaration order.
    func fields<Record: Encodable>(of record: Record) -> [(key: String, value: JSONValue)] {
        do {
            guard let fields = try JSONValueEncoder().fields(record) else { preconditionFailure("\(Record.self) is not encoded as an object") }
            return fields
        } catch {
            // A synthesized conformance cannot throw here: only one written by hand, by a mistake in it.
            preconditionFailure("\(Record.self) cannot be encoded: \(error)")
        }
    }

    // MARK: - Property list

    func propertyList(_ fields: [(key: String, value: JSONValue)]) -> PropertyListValue {
        var dictionary: [String: PropertyListValue] = [:]
        for (key, value) in fields { dictionary[key] = Self.propertyList(value, moment: moments.contains(key)) }
        return .dictionary(dictionary)
    }

    private static func propertyList(_ value: JSONValue, moment: Bool) -> PropertyListValue? {
        switch value {
        case .null: nil
        case let .bool(flag): .bool(flag)
        case let .integer(number): moment ? .date(Double(number)) : .integer(number)
        case let .number(number): moment ? .date(number) : .real(number)
        case let .string(text): .string(text)
        case let .array(items): .array(items.compactMap { propertyList($0, moment: false) })
        case let .object(fields): .dictionary(fields.compactMapValues { propertyList($0, moment: false) })
        }
    }

    /// A record of type `Record` from its property-list dictionary: nil if it is not one (a member missing
    /// or of the wrong kind, a number that is not finite). Members it does not declare are ignored.
    func decode<Record: Decodable>(_ type: Record.Type, fromPropertyList value: PropertyListValue) -> Record? {
        guard case .dictionary = value, let json = Self.json(value) else { return nil }
        return try? JSONValueDecoder().decode(type, from: json)
    }

    /// A property list as JSON: dates and reals as numbers (nil for one that is not finite), data as null
    /// (no record reads bytes this way).
    private static func json(_ value: PropertyListValue) -> JSONValue? {
        switch value {
        case let .string(text): return .string(text)
        case let .integer(number): return .integer(number)
        case let .real(number), let .date(number): return number.isFinite ? .number(number) : nil
        case let .bool(flag): return .bool(flag)
        case .data: return .null
        case let .array(items):
            var converted: [JSONValue] = []
            converted.reserveCapacity(items.count)
            for item in items {
                guard let json = json(item) else { return nil }
                converted.append(json)
            }
            return .array(converted)
        case let .dictionary(fields):
            var converted: [String: JSONValue] = [:]
            for (key, item) in fields {
                guard let json = json(item) else { return nil }
                converted[key] = json
            }
            return .object(converted)
        }
    }

    // MARK: - JSON

    /// One field's value as `--json` shows it: a moment as ISO 8601, a number to its decimals.
    func write(_ field: (key: String, value: JSONValue), to writer: inout JSONWriter) {
        if moments.contains(field.key), let seconds = field.value.doubleValue {
            writer.bytes.append(0x22)
            Timestamp.appendISO8601(seconds, to: &writer.bytes)
            writer.bytes.append(0x22)
        } else if let places = decimals[field.key], let number = field.value.doubleValue {
            writer.writeNumber(number, decimals: places)
        } else {
            writer.write(field.value)
        }
    }

    // MARK: - Rows

    /// `INSERT INTO table (<first>, <the fields' keys>) VALUES (?, …)`: the columns are the keys.
    func insertSQL(into table: String, first: [String], _ fields: [(key: String, value: JSONValue)]) -> String {
        let columns = first + fields.map(\.key)
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }

    /// A record of type `Record` from the row `statement` stands on, its columns by name (others ignored).
    func decode<Record: Decodable>(_ type: Record.Type, fromRow statement: Statement) throws(JSONDecodingFailure) -> Record {
        try JSONValueDecoder().decode(type, from: .object(statement.jsonRow))
    }
}

extension Statement {
    /// Binds `fields`' values in order, from parameter `index` (1-based).
    func bind(_ fields: [(key: String, value: JSONValue)], from index: Int32) throws(StorageError) {
        for (offset, field) in fields.enumerated() {
            let at = index + Int32(offset)
            switch field.value {
            case .null: try bindNull(at: at)
            case let .bool(flag): try bind(Int64(flag ? 1 : 0), at: at)
            case let .integer(number): try bind(number, at: at)
            case let .number(number): try bind(number, at: at)
            case let .string(text): try bind(text, at: at)
            case .array, .object: try bind(field.value.text, at: at)
            }
        }
    }

    /// The row the statement stands on, its columns by name, as JSON (a BLOB as null: no record reads
    /// bytes this way).
    var jsonRow: [String: JSONValue] {
        var row: [String: JSONValue] = [:]
        for column in 0..<columnCount {
            switch columnType(at: column) {
            case .integer: row[columnName(at: column)] = .integer(int64(at: column))
            case .real: row[columnName(at: column)] = .number(double(at: column))
            case .text: row[columnName(at: column)] = .string(string(at: column))
            case .blob, .null: row[columnName(at: column)] = .null
            }
        }
        return row
    }
}
