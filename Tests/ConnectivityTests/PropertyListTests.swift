import Control
import JSONText
import Testing
import PropertyLists
@testable import Connectivity

@Suite struct PropertyListTests {
    static let sample: UserInfo = [
        "s": .string("héllo"), "i": .integer(-5), "r": .real(2.5), "t": .bool(true), "f": .bool(false),
        "d": .date(1_795_953_600.5), "b": .data([0, 1, 255]),
        "a": .array([.integer(1), .dictionary(["x": .string("y")])]),
        "e": .dictionary([:]),
    ]

    @Test func roundTripsEveryType() throws {
        let bytes = PropertyListCodec.encode(Self.sample)
        #expect(try PropertyListCodec.decodeDictionary(bytes) == Self.sample)
    }

    @Test func equalDictionariesEncodeToEqualBytes() {
        var reordered: UserInfo = [:]
        for key in Self.sample.keys.sorted().reversed() { reordered[key] = Self.sample[key] }
        #expect(PropertyListCodec.encode(reordered) == PropertyListCodec.encode(Self.sample))
    }

    @Test func everyTruncationFails() {
        let bytes = PropertyListCodec.encode(Self.sample)
        for cut in 0..<bytes.count {
            #expect(throws: DecodeError.self) { try PropertyListCodec.decodeDictionary(Array(bytes[..<cut])) }
        }
        #expect(throws: DecodeError.self) { try PropertyListCodec.decodeDictionary(bytes + [0]) }
    }

    @Test func lyingCountsAndDeepNestingFailWithoutAllocating() {
        // A dictionary claiming four billion entries in 5 bytes.
        #expect(throws: DecodeError.self) { try PropertyListCodec.decodeDictionary([1, 0xFF, 0xFF, 0xFF, 0xFF]) }
        // A data value claiming 4 GiB.
        #expect(throws: DecodeError.self) {
            try PropertyListCodec.decodeDictionary([1, 0, 0, 0, 1, 0, 0, 0, 1, 0x6B, 9, 0xFF, 0xFF, 0xFF, 0xFF])
        }
        var nested: [UInt8] = []
        for _ in 0..<100 { nested += [2, 0, 0, 0, 1] }
        #expect(throws: DecodeError.tooDeep(limit: PropertyListCodec.maximumDepth)) {
            try PropertyListCodec.decodeDictionary([1, 0, 0, 0, 1, 0, 0, 0, 1, 0x6B] + nested)
        }
        #expect(throws: DecodeError.self) { try PropertyListCodec.decodeDictionary([0x42]) }
        #expect(throws: DecodeError.self) { try PropertyListCodec.decodeDictionary([3, 0, 0, 0, 0]) }  // not a dictionary
    }

    @Test func jsonNullIsNotAPropertyListType() throws {
        let json = try JSONValue(parsing: #"{"ok": 1, "nested": {"bad": null}}"#)
        do {
            _ = try UserInfo(userInfoJSON: json)
            Issue.record("null was accepted")
        } catch {
            #expect(error.code == .payloadUnsupportedTypes)
            #expect(error.code.rawValue == 7010)
            #expect(error.message.contains("nested.bad"))
        }
        #expect(throws: WCError.self) { try UserInfo(userInfoJSON: .array([])) }
        let good = try UserInfo(userInfoJSON: try JSONValue(parsing: #"{"n": 1, "x": 1.5, "s": "t", "a": [true]}"#))
        #expect(good["n"] == .integer(1))
        #expect(good["x"] == .real(1.5))
    }

    @Test func base64() {
        #expect(Base64.encode([]) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test func errorCodesHaveApplesNumbersAndNames() {
        #expect(WCError.Code.deviceNotPaired.rawValue == 7005)
        #expect(WCError.Code.payloadTooLarge.name == "payloadTooLarge")
        #expect(WCError(.notReachable, "x").description == "7007 notReachable: x")
        #expect(WCError.Code.allCases.count == 19)
    }
}
