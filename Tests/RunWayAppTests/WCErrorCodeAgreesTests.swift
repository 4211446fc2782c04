import Connectivity
import Testing
import WatchConnectivity

/// The engine's error codes (`Connectivity.WCErrorCode`, package) and the app's (`WatchConnectivity.WCError.Code`,
/// public, Apple's) are two declarations of one list: the same numbers, the same names, so that an
/// engine error reaches the app with its code (`WCError.init(_:)` maps by number).
@Suite struct WCErrorCodeAgreesTests {
    @Test func theEnginesCodesAreTheAppsCodes() {
        #expect(Connectivity.WCErrorCode.allCases.map(\.rawValue) == WatchConnectivity.WCError.Code.allCases.map(\.rawValue))
        #expect(Connectivity.WCErrorCode.allCases.map { "\($0)" } == WatchConnectivity.WCError.Code.allCases.map { "\($0)" })
    }
}
