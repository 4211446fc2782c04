import Testing
import WatchConnectivity

/// The iOS delegates of WatchConnectivitySwift5Tests, compiled here in Swift 6 mode (their files are
/// linked into this target): that they build is the test. Their behaviour is checked there, once, since
/// both targets would share the one `WCSession.default`.
@Suite struct Swift6ModeTests {
    @Test func theIOSDelegatesBuildInSwift6Mode() {
        let manager = WaterLogSessionManager()
        let phone = PhoneOnlySessionDelegate()
        #expect(manager.received.isEmpty)
        #expect(phone.states.isEmpty)
        #expect(manager.watchFolder == nil)
    }
}

/// The watchOS extension delegate of WatchConnectivitySwift5Tests, compiled here in Swift 6 mode.
@Suite struct WatchKitSwift6ModeTests {
    @Test @MainActor func theWatchOSDelegateBuildsInSwift6Mode() {
        let delegate = WaterLogExtensionDelegate()
        #expect(delegate.pendingConnectivityTasks.isEmpty)
    }
}
