import Foundation
import Testing
import UserNotifications

/// UIKit's colours and UserNotifications' values beside the session, as a model uses them. (UIKit's
/// names are used in UIKitColourProbes.swift: a file importing both Testing and UIKit asks for Swift
/// Testing's UIKit overlay, which the Linux toolchain does not have.)
@Suite struct UIKitSurfaceTests {

    /// Apple's Human Interface Guidelines, Color: system red is (255, 59, 48) and system blue (0, 122, 255)
    /// in iOS's light appearance.
    @Test func systemColoursAreTheGuidelinesLightValues() {
        #expect(UIKitColourProbes.components255(of: "systemRed") == [255, 59, 48, 255])
        #expect(UIKitColourProbes.components255(of: "systemBlue") == [0, 122, 255, 255])
        #expect(UIKitColourProbes.components255(of: "clear")[3] == 0)
        #expect(UIKitColourProbes.grey(0.5) == [0.5, 0.5, 0.5, 1])
    }

    @Test func hueSaturationBrightnessRoundTrips() {
        #expect(UIKitColourProbes.fromHue(0.5) == [0, 1, 1, 1])
        #expect(UIKitColourProbes.orangeThroughHueAndBack() < 1e-9)
    }

    @Test func aColourIsEqualByValueAndArchives() throws {
        #expect(UIKitColourProbes.sprintIsItsRGB())
        #expect(UIKitColourProbes.bandAlpha() == 0.25)
        #expect(try UIKitColourProbes.tempoArchivesAndComesBack())
    }

    @Test func notificationValuesAsAppsReadThem() async {
        #expect(UNNotificationSound.default == UNNotificationSound.default)
        #expect(UNNotificationSound(named: UNNotificationSoundName("whistle.caf")) != .default)
        let content = UNMutableNotificationContent()
        content.sound = .default
        #expect(content.sound == .default)
        #expect(UNNotificationDefaultActionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
        #expect(UNNotificationDismissActionIdentifier == "com.apple.UNNotificationDismissActionIdentifier")
        // A process that is no app on a simulated device has no centre to be authorized by.
        #expect(await UNUserNotificationCenter.current().notificationSettings().authorizationStatus == .notDetermined)
        await #expect(throws: (any Error).self) { try await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound]) }
    }
}
