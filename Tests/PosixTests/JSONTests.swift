import JSONText
import Testing

@Suite struct JSONTests {
    @Test func parsesEveryKind() throws {
        let value = try JSONValue(parsing: #" {"a": [1, -2.5, 3e2, true, false, null, "x\"\n\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(value["a"]?.arrayValue?.count == 7)
        #expect(value["a"]?.arrayValue?[0] == .integer(1))
        #expect(value["a"]?.arrayValue?[1] == .number(-2.5))
        #expect(value["a"]?.arrayValue?[2] == .number(300))
        #expect(value["a"]?.arrayValue?[5] == .null)
        #expect(value["a"]?.arrayValue?[6] == .string("x\"\né😀"))
        #expect(value["b"] == .object([:]))
    }

    @Test func rejectsMalformedJSON() {
        for text in [
            "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\u{01}\"", "[1] x", "nul", "{1:2}", "\"\\x\"",
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue(parsing: text) }
        }
    }

    @Test func writesWhatItParses() throws {
        let value: JSONValue = .object(["k": .array([.integer(-3), .number(0.5), .string("q\"\\\t\u{1}"), .bool(true), .null])])
        #expect(try JSONValue(parsing: value.text) == value)
        #expect(try JSONValue(parsing: value.prettyText) == value)
    }

    /// Issue 49: a real is written as a real, so that it is read back as one — a payload's `5000.0` stays
    /// real through every JSON hop (the writer wrote `5000`, read back as the integer 5000, and an app's
    /// `userInfo["distance"] as? Double` was nil). Integers stay integers.
    @Test func aRealStaysARealThroughText() throws {
        let value: JSONValue = .object([
            "distance": .number(5000.0), "zero": .number(0), "negative": .number(-12.0), "huge": .number(1e20), "tiny": .number(5e-324),
            "half": .number(0.5), "laps": .integer(12), "minus": .integer(-3), "indoor": .bool(false),
        ])
        #expect(JSONValue.number(5000.0).text == "5000.0")
        #expect(JSONValue.integer(5000).text == "5000")
        #expect(try JSONValue(parsing: value.text) == value, "\(value.text)")
        #expect(try JSONValue(parsing: value.prettyText) == value)
        #expect(JSONValue.number(.infinity).text == "null", "not JSON")
        for _ in 0..<2000 {
            let number = Double(bitPattern: UInt64.random(in: 0...UInt64.max))
            guard number.isFinite else { continue }
            #expect(try JSONValue(parsing: JSONValue.number(number).text) == .number(number), "\(number)")
        }
    }

    @Test func fixedDecimalNumbers() {
        func render(_ number: Double, _ places: Int) -> String {
            var writer = JSONWriter()
            writer.writeNumber(number, decimals: places)
            return writer.string
        }
        #expect(render(5.0, 3) == "5")
        #expect(render(5.25, 3) == "5.25")
        #expect(render(-0.05, 2) == "-0.05")
        #expect(render(361.04, 1) == "361")
        #expect(render(12.3456, 2) == "12.35")
        #expect(render(.nan, 2) == "null")
    }
}
