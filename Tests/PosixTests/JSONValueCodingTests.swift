import JSONText
import Testing

/// `Codable` to and from `JSONValue` (`JSONValueEncoder`, `JSONValueDecoder`): what a synthesized
/// conformance writes and reads, the field wrappers, and a failure that names the key.
@Suite struct JSONValueCodingTests {
    struct Inner: Codable, Equatable {
        var depth: Int64
        var ratio: Double
    }

    struct Record: Codable, Equatable {
        var name: String
        var count: Int
        var small: UInt8
        var flag: Bool
        var inner: Inner
        var ids: [String]
        var counts: [String: Int64]
        var free: JSONValue
        var note: String?
        @NullIfNil var pid: Int64?
        @TrueIfMissing var installed = true
        @ZeroIfMissing var later: Int64 = 0
        @OtherFields var other: [String: JSONValue] = [:]
    }

    static let record = Record(
        name: "a", count: 3, small: 7, flag: true, inner: Inner(depth: 2, ratio: 0.5), ids: ["x", "y"], counts: ["user": 1],
        free: .array([.null, .integer(1)]), note: nil, pid: nil, other: ["extra": .string("kept")])

    @Test func aRecordEncodesToTheJSONItDeclares() throws {
        let json = try JSONValueEncoder().encode(Self.record)
        #expect(
            json
                == .object([
                    "name": .string("a"), "count": .integer(3), "small": .integer(7), "flag": .bool(true),
                    "inner": .object(["depth": .integer(2), "ratio": .number(0.5)]), "ids": .array([.string("x"), .string("y")]),
                    "counts": .object(["user": .integer(1)]), "free": .array([.null, .integer(1)]), "pid": .null, "installed": .bool(true),
                    "later": .integer(0), "extra": .string("kept"),
                ]))
        // In declaration order, for writers that keep it; the free-form members after the declared ones.
        #expect(
            try JSONValueEncoder().fields(Self.record)?.map(\.key) == [
                "name", "count", "small", "flag", "inner", "ids", "counts", "free", "pid", "installed", "later", "extra",
            ])
    }

    @Test func itDecodesBackToTheSameValue() throws {
        let json = try JSONValueEncoder().encode(Self.record)
        #expect(try JSONValueDecoder().decode(Record.self, from: json) == Self.record)
    }

    @Test func missingMembersTakeTheirDeclaredReading() throws {
        let bare: JSONValue = .object([
            "name": .string("a"), "count": .number(3), "small": .integer(7), "flag": .bool(false),
            "inner": .object(["depth": .integer(2), "ratio": .integer(1)]), "ids": .array([]), "counts": .object([:]), "free": .null,
        ])
        let record = try JSONValueDecoder().decode(Record.self, from: bare)
        #expect(record.count == 3 && record.inner.ratio == 1 && record.note == nil && record.pid == nil)
        #expect(record.installed && record.later == 0 && record.other.isEmpty)
    }

    @Test func aValueOfAnotherShapeNamesWhereItIsWrong() {
        func failure(_ change: (inout [String: JSONValue]) -> Void) -> JSONDecodingFailure? {
            guard case var .object(fields) = try? JSONValueEncoder().encode(Self.record) else { return nil }
            change(&fields)
            do {
                _ = try JSONValueDecoder().decode(Record.self, from: .object(fields))
                return nil
            } catch {
                return error
            }
        }
        #expect(failure { $0["name"] = nil } == JSONDecodingFailure(path: "name", problem: "missing"))
        #expect(failure { $0["count"] = .number(1.5) } == JSONDecodingFailure(path: "count", problem: "not a whole number in range"))
        #expect(failure { $0["small"] = .integer(256) } == JSONDecodingFailure(path: "small", problem: "not a whole number in range"))
        #expect(failure { $0["flag"] = .integer(1) } == JSONDecodingFailure(path: "flag", problem: "not true or false"))
        #expect(
            failure { $0["inner"] = .object(["depth": .string("2"), "ratio": .integer(1)]) }
                == JSONDecodingFailure(path: "inner.depth", problem: "not a whole number in range"))
        #expect(failure { $0["ids"] = .array([.string("x"), .integer(1)]) } == JSONDecodingFailure(path: "ids[1]", problem: "not a string"))
        #expect(failure { $0["note"] = .integer(1) } == JSONDecodingFailure(path: "note", problem: "not a string"))
        #expect(throws: JSONDecodingFailure.self) { try JSONValueDecoder().decode(Record.self, from: .array([])) }
    }
}
