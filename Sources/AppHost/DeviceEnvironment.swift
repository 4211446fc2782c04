import Posix

/// The environment an OS starts an app's process with (`phone-os`): where its device's home is, the
/// OS's socket, the app's container and bundle id, and for an app of the developer's own the device's
/// settings. An app on the public APIs never reads them itself: the `WatchConnectivity` and
/// `UserNotifications` modules do, when the session is first used (`DeviceHost.fromEnvironment`).
package enum DeviceEnvironment {
    package static let home = "RUNWAY_DEVICE_HOME"
    package static let osSocket = "RUNWAY_OS_SOCKET"
    package static let container = "RUNWAY_APP_CONTAINER"
    package static let bundleID = "RUNWAY_BUNDLE_ID"
    /// `phone` or `watch`: which device the home is (default phone).
    package static let role = "RUNWAY_DEVICE_ROLE"
    /// The device's log level and format (`--log-level`, `--log-format` of the daemons).
    package static let logLevel = "RUNWAY_LOG_LEVEL"
    package static let logFormat = "RUNWAY_LOG_FORMAT"
    /// The app's version, as its handshake says it (`N(.N){0,3}`; default 1.0): what `runway phone app
    /// install --version V` installed.
    package static let appVersion = "RUNWAY_APP_VERSION"
    /// `1`: the fault-injection control commands are accepted (`--enable-test-commands`).
    package static let testCommands = "RUNWAY_TEST_COMMANDS"

    package static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }
}
