import Foundation
import Testing
import WatchKit

/// A watchOS extension delegate compiles unchanged against WatchKit, ClockKit and WidgetKit, and in a
/// process no watch-os launched it behaves as a watch with no system would: the app is active, no
/// complication is on a face, and a refresh cannot be scheduled (the completion says why).
@Suite struct WatchKitCompatibilityTests {
    @Test @MainActor func aWatchOSExtensionDelegateRunsWithNoWatchOS() {
        let delegate = WaterLogExtensionDelegate()
        WKExtension.shared().delegate = delegate
        delegate.applicationDidFinishLaunching()
        #expect(delegate.log.first == "launched on watchOS 10.0, 198 pt wide")
        #expect(delegate.refreshErrors.count == 1, "no watch-os: nothing schedules a refresh")
        #expect(delegate.reloadComplications() == 0)
        #expect(delegate.isOnScreen)
        #expect(WKInterfaceDevice.current().name == "Apple Watch")
        WKExtension.shared().delegate = nil
    }
}
