/// A strict JSON parser (RFC 8259) with a nesting limit, for command-line input and daemon replies.
package struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    package let message: String
    package let offset: Int
    package var description: String { "invalid JSON at byte \(offset): \(message)" }
}

extension JSONValue {
    package static let maximumDepth = 64

    package init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    package init(parsing bytes: [UInt8]) throws(JSONParseError) {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.fail("unexpected data after the value") }
        self = value
    }
}

private struct Parser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(literal)") }
            index += 1
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < JSONValue.maximumDepth else { throw fail("nested deeper than \(JSONValue.maximumDepth)") }
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case 0x7B: return try parseObject(depth: depth)
        case 0x5B: return try parseArray(depth: depth)
        case 0x22: return .string(try parseString())
        case 0x74: try expect("true"); return .bool(true)
        case 0x66: try expect("false"); return .bool(false)
        case 0x6E: try expect("null"); return .null
        case 0x2D, 0x30...0x39: return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var entries: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == 0x7D { index += 1; return .object(entries) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == 0x22 else { throw fail("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            entries[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == 0x2C { index += 1; continue }
            if bytes[index] == 0x7D { index += 1; return .object(entries) }
            throw fail("expected , or }")
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == 0x5D { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == 0x2C { index += 1; continue }
            if bytes[index] == 0x5D { index += 1; return .array(items) }
            throw fail("expected , or ]")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == 0x2D { index += 1 }
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw fail("expected a digit") }
        if bytes[index] == 0x30 {
            index += 1
        } else {
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == 0x2E {
            isInteger = false
            index += 1
            guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw fail("expected a digit after .") }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw fail("expected an exponent") }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw fail("number out of range") }
        return .number(number)
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x22:
                guard let string = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return string
            case 0x5C:
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x2F: out.append(0x2F)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        try expect("\\u")
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid unicode escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw fail("invalid escape")
                }
            case 0x00..<0x20: throw fail("control character in string")
            default: out.append(byte)
            }
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x37)
            case 0x61...0x66: digit = UInt32(byte - 0x57)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
        }
        return value
    }
}
