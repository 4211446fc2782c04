import Foundation
import PropertyLists
import Testing
import WatchConnectivity

/// Issue 49: numbers keep their kind and read as on iOS. A received userInfo (message, context, file
/// metadata) holds `NSNumber`s where iOS's does — property-list integers, reals and Booleans decoded by
/// Foundation are `NSNumber`s there, Booleans the Boolean class — so Apple's casts succeed exactly when they
/// do on a device: an integral real is `as? Int` and `as? Double`, an integer `as? Double`, a 0 or 1
/// `as? Bool`, a fraction not `as? Int`. Checked on this Linux toolchain's own bridging (swift-corelibs
/// Foundation), through the public conversions the session uses (`WCSession.untyped`, `WCSession.typed`).
/// On the old code (an integer handed over as a Swift `Int`, a real as a `Double`) `distance as? Double`
/// was nil for `5000`, `laps as? Double` nil, `distance as? Int` nil for `5000.0`.
@Suite struct NumberKindsTests {
    static let received = WCSession.untyped([
        "distance": .real(5000.0), "pace": .real(5.25), "laps": .integer(12), "zero": .integer(0), "one": .integer(1),
        "indoor": .bool(false), "finished": .bool(true), "splits": .array([.integer(1), .real(2.5)]),
        "route": .dictionary(["meters": .integer(400)]),
    ])

    @Test func receivedNumbersAreNSNumbersAndAppleCastsSucceedAsOnADevice() {
        let userInfo = Self.received
        #expect(userInfo["distance"] is NSNumber && userInfo["laps"] is NSNumber && userInfo["indoor"] is NSNumber)
        #expect(userInfo["distance"] as? Double == 5000.0)
        #expect(userInfo["distance"] as? Int == 5000, "an integral real is an Int too")
        #expect(userInfo["distance"] as? Float == 5000.0)
        #expect(userInfo["distance"] as? Bool == nil, "5000 is not a Boolean")
        #expect(userInfo["pace"] as? Double == 5.25)
        #expect(userInfo["pace"] as? Int == nil, "a fraction is not an Int")
        #expect(userInfo["laps"] as? Int == 12)
        #expect(userInfo["laps"] as? Double == 12.0, "an integer is a Double too")
        #expect(userInfo["laps"] as? Int64 == 12)
        #expect(userInfo["zero"] as? Bool == false && userInfo["one"] as? Bool == true, "0 and 1 are Booleans too")
        #expect(userInfo["indoor"] as? Bool == false)
        #expect(userInfo["finished"] as? Bool == true)
        #expect(userInfo["finished"] as? Int == 1, "a Boolean is the number 1")
        #expect((userInfo["splits"] as? [Double]) == [1.0, 2.5])
        #expect((userInfo["splits"] as? [Int]) == nil)
        #expect((userInfo["route"] as? [String: Any])?["meters"] as? Double == 400.0)
        // A switch over the value, as apps write one: the first matching cast wins, as on iOS.
        let kind: String =
            switch userInfo["distance"] {
            case let value as Int: "Int \(value)"
            case let value as Double: "Double \(value)"
            default: "other"
            }
        #expect(kind == "Int 5000")
    }

    /// What the app sends keeps its kind: `NSNumber(value: 5000.0)` a real, `NSNumber(value: 12)` an
    /// integer, `NSNumber(value: true)` and Swift's `true` a Boolean, `NSNumber(value: Int8(1))` an integer
    /// (a char number is not a Boolean, on iOS either) — and what arrives, sent back, is what came.
    @Test func whatTheAppSendsKeepsItsKindBothWays() throws {
        let sent: [String: Any] = [
            "distance": NSNumber(value: 5000.0), "laps": NSNumber(value: 12), "indoor": NSNumber(value: true), "flag": true, "swiftReal": 5000.0,
            "swiftInt": 7, "char": NSNumber(value: Int8(1)), "small": NSNumber(value: Float(0.5)),
        ]
        let typed = try WCSession.typed(sent)
        #expect(typed["distance"] == .real(5000.0))
        #expect(typed["laps"] == .integer(12))
        #expect(typed["indoor"] == .bool(true))
        #expect(typed["flag"] == .bool(true))
        #expect(typed["swiftReal"] == .real(5000.0))
        #expect(typed["swiftInt"] == .integer(7))
        #expect(typed["char"] == .integer(1))
        #expect(typed["small"] == .real(0.5))
        // Received, then sent on unchanged (a relay): the same kinds.
        #expect(try WCSession.typed(WCSession.untyped(typed)) == typed)
        #expect(try WCSession.typed(Self.received) == WCSession.typed(WCSession.untyped(try WCSession.typed(Self.received))))
    }
}
