import Connectivity
import Testing
import WatchConnectivity

/// The app's `WCError.Code` is declared in WatchConnectivity (so that its cases resolve for a file that
/// imports only WatchConnectivity, under MemberImportVisibility too); the engine's codes are
/// Connectivity's. Both are Apple's list: every engine code is an app code of the same number and name,
/// and the other way round, so the mapping at the boundary (by number) loses none.
@Suite struct WCErrorCodeTests {
    @Test func theEnginesCodesAndTheAppsAreTheSameList() {
        for code in Connectivity.WCErrorCode.allCases {
            let app = WatchConnectivity.WCError.Code(rawValue: code.rawValue)
            #expect(app.map { String(describing: $0) } == code.name, "\(code.rawValue)")
        }
        #expect(WatchConnectivity.WCError.Code.allCases.map(\.rawValue) == Connectivity.WCErrorCode.allCases.map(\.rawValue))
        #expect(WatchConnectivity.WCError.Code.allCases.count == 19)
    }
}
