import Foundation

/// What a notification says (Apple's `UNNotificationContent`). The device keeps `title`, `body` and,
/// from `userInfo`, a `"language"` string; the other fields live as long as the request object.
open class UNNotificationContent: NSObject, @unchecked Sendable {
    open internal(set) var title: String = ""
    open internal(set) var subtitle: String = ""
    open internal(set) var body: String = ""
    open internal(set) var badge: NSNumber?
    open internal(set) var userInfo: [AnyHashable: Any] = [:]
    open internal(set) var threadIdentifier: String = ""
    open internal(set) var categoryIdentifier: String = ""
    /// The sound to play (the device keeps no sound: it lives as long as the request object).
    open internal(set) var sound: UNNotificationSound?

    public override init() { super.init() }
}

/// Content to fill in (Apple's `UNMutableNotificationContent`).
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    open override var title: String {
        get { super.title }
        set { super.title = newValue }
    }
    open override var subtitle: String {
        get { super.subtitle }
        set { super.subtitle = newValue }
    }
    open override var body: String {
        get { super.body }
        set { super.body = newValue }
    }
    open override var badge: NSNumber? {
        get { super.badge }
        set { super.badge = newValue }
    }
    open override var userInfo: [AnyHashable: Any] {
        get { super.userInfo }
        set { super.userInfo = newValue }
    }
    open override var threadIdentifier: String {
        get { super.threadIdentifier }
        set { super.threadIdentifier = newValue }
    }
    open override var categoryIdentifier: String {
        get { super.categoryIdentifier }
        set { super.categoryIdentifier = newValue }
    }
    open override var sound: UNNotificationSound? {
        get { super.sound }
        set { super.sound = newValue }
    }
}

/// When a notification fires (Apple's `UNNotificationTrigger`).
open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    public let repeats: Bool
    init(repeats: Bool) {
        self.repeats = repeats
        super.init()
    }
}

/// Fires `timeInterval` seconds of device time after it is added.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    public let timeInterval: TimeInterval
    /// Set when the device accepted the request: the fire date it computed.
    var fireDate: Date?

    public init(timeInterval: TimeInterval, repeats: Bool) {
        self.timeInterval = timeInterval
        super.init(repeats: repeats)
    }

    /// The date it fires next, once added; nil before.
    open func nextTriggerDate() -> Date? { fireDate }
}

/// Fires at the date its components describe (a full date: year, month, day and time of day; the
/// components' time zone, else the device's).
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    public let dateComponents: DateComponents
    /// The exact date, for a request the device holds (components round to the calendar's precision).
    private var exactDate: Date?

    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    /// The date the components name, if they name one.
    open func nextTriggerDate() -> Date? {
        if let exactDate { return exactDate }
        guard let year = dateComponents.year, let month = dateComponents.month, let day = dateComponents.day else { return nil }
        let hour = dateComponents.hour ?? 0, minute = dateComponents.minute ?? 0, second = dateComponents.second ?? 0
        if dateComponents.timeZone?.secondsFromGMT() == 0, dateComponents.calendar.map({ $0.identifier == .gregorian }) ?? true,
            (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), (0..<24).contains(hour), (0..<60).contains(minute),
            (0...60).contains(second), (0..<1_000_000_000).contains(dateComponents.nanosecond ?? 0)
        {
            // UTC, to the nanosecond, without the calendar's rounding.
            let days = Self.daysFromCivil(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSince1970: Double(seconds) + Double(dateComponents.nanosecond ?? 0) / 1e9)
        }
        var calendar = dateComponents.calendar ?? Calendar(identifier: .gregorian)
        if let zone = dateComponents.timeZone { calendar.timeZone = zone }
        return calendar.date(from: dateComponents)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The trigger of a request the device holds for `date` (UTC components, to the nanosecond).
    static func at(_ date: Date) -> UNCalendarNotificationTrigger {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var components = calendar.dateComponents(in: calendar.timeZone, from: date)
        components.calendar = calendar
        components.timeZone = calendar.timeZone
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
        trigger.exactDate = date
        return trigger
    }
}

/// A notification to schedule (Apple's `UNNotificationRequest`).
open class UNNotificationRequest: NSObject, @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    public let trigger: UNNotificationTrigger?

    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        super.init()
    }
}

/// A delivered notification (Apple's `UNNotification`).
open class UNNotification: NSObject, @unchecked Sendable {
    /// When it was delivered, in device time.
    public let date: Date
    public let request: UNNotificationRequest

    init(date: Date, request: UNNotificationRequest) {
        self.date = date
        self.request = request
        super.init()
    }
}

/// What the app asks to be allowed (Apple's `UNAuthorizationOptions`); the simulated user always allows.
public struct UNAuthorizationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
}

/// How a notification is shown while the app is in the foreground (Apple's
/// `UNNotificationPresentationOptions`).
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

/// The notification centre's error (Apple's `UNError`).
public struct UNError: Error, CustomStringConvertible, Sendable {
    public enum Code: Int, Sendable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case notificationInvalidNoDate = 1401
        case notificationInvalidNoContent = 1402
    }
    public let code: Code
    public let message: String
    public var description: String { "UNError \(code.rawValue): \(message)" }
}

/// The app's side of deliveries and of the user's responses (Apple's `UNUserNotificationCenterDelegate`).
/// Each method has a default, as Apple's are optional: the completion-handler form calls the `async` one,
/// whose default does nothing (presents nothing), so an app implements whichever form it writes.
public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    /// A notification was delivered while the app was in the foreground (never when it runs in the
    /// background: the user sees it on the device instead). Call the handler with how to present it.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void)

    /// `willPresent`, awaited.
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async -> UNNotificationPresentationOptions

    /// The user opened one of the app's notifications (`runway phone notifications open ID`): the app was
    /// brought to the foreground (launched if it was not running) and hears the response, whose
    /// `actionIdentifier` is `UNNotificationDefaultActionIdentifier`. Call the handler when done.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    )

    /// `didReceive`, awaited.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async

    /// The user asked for the app's notification settings (never, here: there is no Settings app).
    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        nonisolated(unsafe) let delegate = self
        Task { completionHandler(await delegate.userNotificationCenter(center, willPresent: notification)) }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    { [] }

    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse, withCompletionHandler completionHandler: @escaping @Sendable () -> Void
    ) {
        nonisolated(unsafe) let delegate = self
        Task {
            await delegate.userNotificationCenter(center, didReceive: response)
            completionHandler()
        }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {}

    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
}
