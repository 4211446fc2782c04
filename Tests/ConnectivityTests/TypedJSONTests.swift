import Control
import JSONText
import Testing
import PropertyLists
@testable import Connectivity

/// Typed JSON: `{"$date": ISO 8601}` and `{"$data": base64}` for the property-list types JSON lacks.
@Suite struct TypedJSONTests {
    func plist(_ text: String) throws -> UserInfo { try UserInfo(userInfoJSON: try JSONValue(parsing: Array(text.utf8))) }

    @Test func everyPropertyListTypeRoundTripsThroughJSON() throws {
        let sample: UserInfo = [
            "s": .string("héllo"), "i": .integer(-5), "r": .real(2.5), "t": .bool(true),
            "d": .date(1_795_953_600.25), "early": .date(-86_400), "b": .data([0, 1, 2, 254, 255]), "empty": .data([]),
            "a": .array([.date(0), .data([7]), .dictionary(["x": .data([1, 2])])]),
            "e": .dictionary(["when": .date(1_000_000_000.5)]),
        ]
        let text = sample.json.text
        #expect(try plist(text) == sample)
        // And JSON → plist → JSON gives the same text back.
        #expect(try plist(text).json.text == text)
    }

    @Test func datesAndDataAreWrittenTyped() {
        let info: UserInfo = ["d": .date(1_796_040_000.25), "b": .data([0, 1, 255])]
        #expect(info.json.text == #"{"b":{"$data":"AAH/"},"d":{"$date":"2026-11-30T12:00:00.250Z"}}"#)
    }

    @Test func datesWithOffsetsAreTheSameInstant() throws {
        let utc = try plist(#"{"d":{"$date":"2026-11-30T12:00:00Z"}}"#)
        let seoul = try plist(#"{"d":{"$date":"2026-11-30T21:00:00+09:00"}}"#)
        #expect(utc == seoul)
        #expect(utc["d"] == .date(1_796_040_000))
    }

    @Test func base64DecodesOnlyTheCanonicalForm() {
        for bytes in [[], [0], [0, 1], [0, 1, 2], [255, 254, 253, 252], Array(0...255)] as [[UInt8]] {
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        for bad in ["A", "AAE", "A===", "====", "AB=C", "QR==", "AA\u{0}=", "AA-_", "AAE=" + "x"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func malformedTypedValuesAreNamedWithTheirPath() throws {
        let cases: [(String, String)] = [
            (#"{"d":{"$date":"yesterday"}}"#, "$.d.$date: \"yesterday\" is not an ISO 8601 time"),
            (#"{"d":{"$date":"2026-11-30T12:00:00"}}"#, "$.d.$date:"),
            (#"{"d":{"$date":"2026-02-30T12:00:00Z"}}"#, "$.d.$date:"),
            (#"{"d":{"$date":1796040000}}"#, "$.d.$date: must be an ISO 8601 string"),
            (#"{"b":[1,{"$data":"AAE"}]}"#, "$.b[1].$data: \"AAE\" is not standard base64"),
            (#"{"b":{"$data":null}}"#, "$.b.$data: must be a base64 string"),
            (#"{"x":{"$date":"2026-11-30T12:00:00Z","tz":"Asia/Seoul"}}"#, "$.x: an object with \"$date\" must have no other key (found tz)"),
            (#"{"x":{"$data":"AA==","$date":"2026-11-30T12:00:00Z"}}"#, "must have no other key"),
        ]
        for (text, expected) in cases {
            let json = try JSONValue(parsing: Array(text.utf8))
            let problem = TypedJSON.problem(in: json)
            #expect(problem?.contains(expected) == true, "\(text): \(problem ?? "nil")")
            #expect(!(problem ?? "").contains("\n"))
            #expect(throws: WCError.self) { try UserInfo(userInfoJSON: json) }
        }
    }

    @Test func ordinaryDollarKeysAndPlainStringsStayWhatTheyAre() throws {
        #expect(TypedJSON.problem(in: try JSONValue(parsing: Array(#"{"$dates":{"$datum":1},"d":"2026-11-30T12:00:00Z"}"#.utf8))) == nil)
        let info = try plist(#"{"$dates":{"$datum":1},"d":"2026-11-30T12:00:00Z"}"#)
        #expect(info["d"] == .string("2026-11-30T12:00:00Z"))
        #expect(info["$dates"] == .dictionary(["$datum": .integer(1)]))
    }
}
