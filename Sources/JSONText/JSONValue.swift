/// A parsed JSON document. Numbers keep whether they were written as integers, so a count stays an
/// integer and `1.5` stays a real.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package subscript(key: String) -> JSONValue? {
        if case let .object(entries) = self { return entries[key] }
        return nil
    }

    package var stringValue: String? { if case let .string(v) = self { v } else { nil } }
    package var boolValue: Bool? { if case let .bool(v) = self { v } else { nil } }
    package var arrayValue: [JSONValue]? { if case let .array(v) = self { v } else { nil } }
    package var objectValue: [String: JSONValue]? { if case let .object(v) = self { v } else { nil } }

    package var doubleValue: Double? {
        switch self {
        case let .integer(v): Double(v)
        case let .number(v): v
        default: nil
        }
    }

    package var intValue: Int? {
        switch self {
        case let .integer(v): Int(exactly: v)
        case let .number(v): Int(exactly: v)
        default: nil
        }
    }
}

// MARK: - Writing

extension JSONValue {
    /// Compact JSON text; object keys sorted, so output is stable.
    package var text: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.string
    }

    /// Indented JSON text, for people.
    package var prettyText: String {
        var writer = JSONWriter(indent: 2)
        writer.write(self)
        return writer.string
    }
}

/// Appends JSON to a byte array, fast enough to stream a logbook of 100,000 flights.
package struct JSONWriter {
    package var bytes: [UInt8] = []
    let indent: Int
    private var depth = 0

    package init(indent: Int = 0, capacity: Int = 256) {
        self.indent = indent
        bytes.reserveCapacity(capacity)
    }

    package var string: String { String(decoding: bytes, as: UTF8.self) }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case let .bool(flag): raw(flag ? "true" : "false")
        case let .integer(number): raw(String(number))
        case let .number(number): writeReal(number)
        case let .string(text): writeString(text)
        case let .array(items):
            if items.isEmpty { raw("[]"); return }
            bytes.append(0x5B)
            depth += 1
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                newline()
                write(item)
            }
            depth -= 1
            newline()
            bytes.append(0x5D)
        case let .object(entries):
            if entries.isEmpty { raw("{}"); return }
            bytes.append(0x7B)
            depth += 1
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { bytes.append(0x2C) }
                newline()
                writeString(key)
                bytes.append(0x3A)
                if indent > 0 { bytes.append(0x20) }
                write(entries[key]!)
            }
            depth -= 1
            newline()
            bytes.append(0x7D)
        }
    }

    private mutating func newline() {
        guard indent > 0 else { return }
        bytes.append(0x0A)
        for _ in 0..<(indent * depth) { bytes.append(0x20) }
    }

    package mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// A finite number as JSON; NaN and infinities (not JSON) become `null`.
    package mutating func writeNumber(_ number: Double) {
        guard number.isFinite else { raw("null"); return }
        if number == number.rounded(), abs(number) < 1e15 {
            raw(String(Int64(number)))
        } else {
            raw(String(number))
        }
    }

    /// A real as a real: `5000.0`, `0.5`, `1e+20` — always with a point or an exponent, so that the parser
    /// reads it back as a real and `JSONValue(parsing: value.text) == value` (a payload's `5000.0` stays a
    /// real through every JSON hop: the control socket, `--json`, a scenario file, issue 49). Swift's
    /// shortest form that reads back as the same `Double`; NaN and infinities (not JSON) become `null`.
    package mutating func writeReal(_ number: Double) {
        guard number.isFinite else { raw("null"); return }
        raw(String(number))
    }

    /// A number rounded to `decimals` places, written without exponent (`12.35`).
    package mutating func writeNumber(_ number: Double, decimals: Int) {
        guard number.isFinite else { raw("null"); return }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (number * scale).rounded()
        guard abs(scaled) < 9e15 else { writeNumber(number); return }
        var integer = Int64(scaled)
        if integer < 0 { bytes.append(0x2D); integer = -integer }
        let whole = integer / Int64(scale)
        var fraction = integer % Int64(scale)
        raw(String(whole))
        guard fraction != 0 else { return }
        var digits = decimals
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        bytes.append(0x2E)
        let text = String(fraction)
        for _ in 0..<(digits - text.count) { bytes.append(0x30) }
        raw(text)
    }

    package mutating func writeString(_ text: String) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }

    /// Object helpers for hand-written records: `{"a":1,"b":"x"}`.
    package mutating func beginObject() { bytes.append(0x7B) }
    package mutating func endObject() { bytes.append(0x7D) }
    package mutating func key(_ name: String, first: Bool = false) {
        if !first { bytes.append(0x2C) }
        writeString(name)
        bytes.append(0x3A)
    }
}
