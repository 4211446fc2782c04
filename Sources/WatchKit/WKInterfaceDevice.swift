import AppHost
import Foundation

/// The haptics a watch app can play (WatchKit's `WKHapticType`).
public enum WKHapticType: Int, Sendable, CaseIterable {
    case notification = 0
    case directionUp = 1
    case directionDown = 2
    case success = 3
    case failure = 4
    case retry = 5
    case start = 6
    case stop = 7
    case click = 8

    var name: String {
        switch self {
        case .notification: "notification"
        case .directionUp: "directionUp"
        case .directionDown: "directionDown"
        case .success: "success"
        case .failure: "failure"
        case .retry: "retry"
        case .start: "start"
        case .stop: "stop"
        case .click: "click"
        }
    }
}

/// The watch the app runs on (WatchKit's `WKInterfaceDevice`): a 45 mm Apple Watch running watchOS 10.
/// `play(_:)` has no motor to move: watch-os records it (`runway watch os status`, `haptics`).
public final class WKInterfaceDevice: NSObject, @unchecked Sendable {
    private static let device = WKInterfaceDevice()
    public static func current() -> WKInterfaceDevice { device }

    override private init() { super.init() }

    public var name: String { "Apple Watch" }
    public var model: String { "Apple Watch" }
    public var localizedModel: String { "Apple Watch" }
    public var systemName: String { "watchOS" }
    public var systemVersion: String { "10.0" }
    /// The 45 mm display, in points.
    public var screenBounds: CGRect { CGRect(x: 0, y: 0, width: 198, height: 242) }
    public var screenScale: CGFloat { 2 }

    /// Plays a haptic: recorded by watch-os, and in the device's log.
    public func play(_ type: WKHapticType) {
        AppLaunch.reportHaptic(type.name)
    }
}
