@testable import Connectivity
import Testing

/// Apple: the session's state properties are valid once it is activated. When the first link is on its
/// way (a connection the OS handed over, the watch's first connect), `activationDidComplete` waits for
/// it, so the app reads the counterpart's true state inside its callback; what that link brings is not
/// told as a change, and later changes are.
@Suite struct ActivationAnnouncementTests {
    /// A core whose stored counterpart is stale (not installed, not active), activated with a link expected.
    static func awaiting(_ role: DeviceRole) -> (SessionCore, [String]) {
        var core = SessionCore(role: role, userInfoByteLimit: 1024, window: SendWindow(maximumTransfers: 8, maximumBytes: 1 << 20))
        _ = core.handle(.activationRequested)
        _ = core.handle(
            .deviceStateLoaded(
                LoadedDeviceState(
                    deviceID: role == .phone ? "phone-1" : "watch-1", pairing: SessionCoreTests.pairing, local: .init(installed: true, active: true),
                    counterpart: .init(installed: false, active: false), counterpartVersion: nil)))
        _ = core.handle(.activationAwaitsFirstLink)
        let told = SessionCoreTests.describe(core.handle(.activationSucceeded))
        return (core, told)
    }

    @Test func theFirstLinksStateComesBeforeActivationIsAnnouncedAndIsNotAChange() {
        var (core, atActivation) = Self.awaiting(.phone)
        #expect(atActivation == ["log session.activated"], "nothing told before the link settles")
        #expect(core.activationState == .activated)
        var watch = SessionCoreTests.handshake(from: .watch)
        watch.complicationEnabled = true
        _ = core.handle(.linkOpening(replacing: false))
        let up = SessionCoreTests.describe(core.handle(.linkUp(watch)))
        #expect(up == ["saveCounterpartState", "tell activationDidComplete activated", "reportFinishedTransfers replayed"], "\(up)")
        #expect(core.isReachable && core.counterpart.complicationEnabled && core.counterpart.installed, "adopted before the app hears")
        let established = SessionCoreTests.describe(core.handle(.linkEstablished(receiveCursors: Lanes(repeating: 0))))
        #expect(!established.contains("tell watchStateDidChange"), "\(established)")
        #expect(!established.contains("tell reachabilityDidChange"), "\(established)")
        #expect(!established.contains("tell activationDidComplete activated"), "once")
        #expect(established.contains("pump"))
        // A later change is one.
        #expect(SessionCoreTests.describe(core.handle(.linkClosed(reason: "test"))).contains("tell reachabilityDidChange"))
    }

    @Test func aFirstAttemptThatSettlesWithoutALinkAnnouncesWithWhatIsKnown() {
        var (core, _) = Self.awaiting(.watch)
        #expect(SessionCoreTests.describe(core.handle(.firstLinkSettled)) == ["tell activationDidComplete activated", "reportFinishedTransfers replayed"])
        #expect(SessionCoreTests.describe(core.handle(.firstLinkSettled)).isEmpty, "once")
    }

    @Test func withoutALinkExpectedActivationIsAnnouncedAtOnce() {
        let core = SessionCoreTests.activated(.phone)
        #expect(!core.announcementAwaitsLink)
    }
}
