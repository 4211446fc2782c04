import Foundation

/// The action of a response when the user opened the notification (tapped it, or its banner).
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
/// The action of a response when the user dismissed the notification (Apple sends it only for a category
/// with `customDismissAction`; categories are not simulated, so no response here carries it).
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

/// The user's response to a delivered notification (Apple's `UNNotificationResponse`): the notification
/// and the action the user chose.
open class UNNotificationResponse: NSObject, NSCopying, @unchecked Sendable {
    public let notification: UNNotification
    public let actionIdentifier: String

    init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        super.init()
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A response with the text the user typed (Apple's `UNTextInputNotificationResponse`); text actions
/// are not simulated, so none is handed here.
open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
    public let userText: String

    init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}

/// A sound's file name (Apple's `UNNotificationSoundName`).
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The sound a notification plays (Apple's `UNNotificationSound`). Nothing is played here; the value is
/// kept on the content as given.
open class UNNotificationSound: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The sound's file, or nil for the system's default.
    let name: UNNotificationSoundName?
    let critical: Bool
    let volume: Float

    init(name: UNNotificationSoundName?, critical: Bool = false, volume: Float = 1) {
        self.name = name
        self.critical = critical
        self.volume = volume
        super.init()
    }

    /// A sound from the app's bundle (`Library/Sounds` or the bundle's root).
    public convenience init(named name: UNNotificationSoundName) { self.init(name: name) }

    /// The system's default notification sound.
    open class var `default`: UNNotificationSound { UNNotificationSound(name: nil) }
    /// The default sound for critical alerts (which need Apple's entitlement).
    open class var defaultCritical: UNNotificationSound { UNNotificationSound(name: nil, critical: true) }
    /// The default ringtone (for a communication notification).
    open class var defaultRingtone: UNNotificationSound { UNNotificationSound(name: UNNotificationSoundName("ringtone")) }

    open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: nil, critical: true, volume: volume)
    }

    open class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name, critical: true)
    }

    open class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: name, critical: true, volume: volume)
    }

    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return name == other.name && critical == other.critical && volume == other.volume
    }

    override open var hash: Int { name?.rawValue.hashValue ?? 0 }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        if let name { coder.encode(name.rawValue, forKey: "name") }
        coder.encode(critical, forKey: "critical")
        coder.encode(volume, forKey: "volume")
    }

    public required init?(coder: NSCoder) {
        name = (coder.decodeObject(of: NSString.self, forKey: "name") as String?).map(UNNotificationSoundName.init(rawValue:))
        critical = coder.decodeBool(forKey: "critical")
        volume = coder.containsValue(forKey: "volume") ? coder.decodeFloat(forKey: "volume") : 1
        super.init()
    }
}

/// Whether the app may post notifications (Apple's `UNAuthorizationStatus`).
public enum UNAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4
}

/// One notification setting (Apple's `UNNotificationSetting`).
public enum UNNotificationSetting: Int, Sendable {
    case notSupported = 0
    case disabled = 1
    case enabled = 2
}

/// How alerts look (Apple's `UNAlertStyle`).
public enum UNAlertStyle: Int, Sendable {
    case none = 0
    case banner = 1
    case alert = 2
}

/// When previews show (Apple's `UNShowPreviewsSetting`).
public enum UNShowPreviewsSetting: Int, Sendable {
    case always = 0
    case whenAuthenticated = 1
    case never = 2
}

/// The app's notification settings (Apple's `UNNotificationSettings`): on a simulated device, the user
/// allowed everything (authorization is always granted).
open class UNNotificationSettings: NSObject, @unchecked Sendable {
    open private(set) var authorizationStatus: UNAuthorizationStatus
    open var soundSetting: UNNotificationSetting { enabled }
    open var badgeSetting: UNNotificationSetting { enabled }
    open var alertSetting: UNNotificationSetting { enabled }
    open var notificationCenterSetting: UNNotificationSetting { enabled }
    open var lockScreenSetting: UNNotificationSetting { enabled }
    open var carPlaySetting: UNNotificationSetting { .notSupported }
    open var announcementSetting: UNNotificationSetting { .disabled }
    open var criticalAlertSetting: UNNotificationSetting { .disabled }
    open var timeSensitiveSetting: UNNotificationSetting { enabled }
    open var scheduledDeliverySetting: UNNotificationSetting { .disabled }
    open var directMessagesSetting: UNNotificationSetting { .notSupported }
    open var alertStyle: UNAlertStyle { authorizationStatus == .authorized ? .banner : .none }
    open var showPreviewsSetting: UNShowPreviewsSetting { .always }
    open var providesAppNotificationSettings: Bool { false }

    private var enabled: UNNotificationSetting { authorizationStatus == .authorized ? .enabled : .disabled }

    init(authorizationStatus: UNAuthorizationStatus) {
        self.authorizationStatus = authorizationStatus
        super.init()
    }
}
