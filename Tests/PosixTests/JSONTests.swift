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
