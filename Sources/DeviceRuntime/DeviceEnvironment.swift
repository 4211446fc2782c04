import Glibc

/// The environment an OS starts an app's process with (`phone-os`): where its device's home is, the
/// OS's socket, the app's container and bundle id. An app on the public APIs never reads them itself:
/// the `WatchConnectivity` and `UserNotifications` modules do, when the session is first used.
public enum DeviceEnvironment {
    public static let home = "RUNWAY_DEVICE_HOME"
    public static let osSocket = "RUNWAY_OS_SOCKET"
    public static let container = "RUNWAY_APP_CONTAINER"
    public static let bundleID = "RUNWAY_BUNDLE_ID"

    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }
}
