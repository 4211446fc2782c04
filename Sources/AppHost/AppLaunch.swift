import Control
import Posix
import PropertyLists

/// How an OS (`phone-os`, `watch-os`) launched the app's process: in the foreground or the background,
/// and for what (`RUNWAY_LAUNCH_MODE`, `RUNWAY_LAUNCH_REASON`); and what the app tells its OS besides
/// `READY=1` on `NOTIFY_SOCKET`. Without an OS (a daemon started by hand) neither is set: the app is in
/// the foreground, as it always was.
package enum AppLaunch {
    package static let modeVariable = "RUNWAY_LAUNCH_MODE"
    package static let reasonVariable = "RUNWAY_LAUNCH_REASON"
    /// The reason watch-os gives when the phone has content for the watch app (what watchOS hands the
    /// app as a `WKWatchConnectivityRefreshBackgroundTask`).
    package static let watchConnectivityReason = "phone-content"
    /// The reason watch-os gives when the phone starts a workout for the watch app (HealthKit's
    /// `startWatchApp(with:)`); the phone's `startWorkout` event rides along in `workoutVariable`.
    package static let workoutReason = "workout"
    /// The reason watch-os gives when it relaunches an app whose workout session was running when it
    /// died (watchOS's workout recovery: WatchKit then calls the delegate's `handleActiveWorkoutRecovery()`).
    package static let workoutRecoveryReason = "workout-recovery"
    /// The `startWorkout` that launched the app, as hex of its binary property list: the session hands it
    /// to the app's workout delegate once it links, as if it had arrived then.
    package static let workoutVariable = "RUNWAY_LAUNCH_WORKOUT"
    /// The reason phone-os gives when it terminates such an app.
    package static let watchSwitchOptOutReason = "watch switched: the app implements neither sessionDidBecomeInactive nor sessionDidDeactivate"
    /// Tells phone-os the app opted out of watch switching (`AppNotice.watchSwitchOptOut`; only under an OS).
    package static func reportWatchSwitchOptOut() { tellOS(.watchSwitchOptOut) }
    /// How long the device must be quiet before `AppNotice.idle`, in ms (unset or 0: never said): the OS's
    /// `--suspend-after-idle-ms`.
    package static let idleVariable = "RUNWAY_IDLE_SUSPEND_MS"
    package static var idleMilliseconds: UInt64? {
        guard isUnderOS, let text = DeviceEnvironment.value(idleVariable), let value = UInt64(text), value > 0 else { return nil }
        return min(value, 3_600_000)
    }
    /// The link's connection, stored with the OS (sd_notify's store: `FDSTORE=1`, `FDNAME=link`, the
    /// descriptor attached) each time one is established: while the app is suspended the OS watches it and
    /// wakes the app for what the counterpart sends (a message, a transfer, a workout).
    package static let linkStoreNotice = "FDSTORE=1\nFDNAME=link"

    /// Tells the OS the device has been idle (only under an OS).
    package static func reportIdle() { tellOS(.idle) }

    /// Hands the OS a copy of the link's connection (only under an OS).
    package static func storeLink(_ descriptor: Int32) {
        guard isUnderOS else { return }
        ServiceNotifier.notify("\(linkStoreNotice)\nMAINPID=\(getpid())", passing: descriptor)
    }

    /// The reason watch-os gives when a background refresh the app scheduled fell due
    /// (`WKApplicationRefreshBackgroundTask`).
    package static let refreshReason = "background-refresh"

    /// Set (`1`) by phone-os when the watch knocked within the last seconds (it is in range, retrying):
    /// the app's session waits for its connection before it announces activation, so that the state
    /// it reports then is the watch's (`Session.firstLinkWaitMilliseconds`).
    package static let watchNearbyVariable = "RUNWAY_WATCH_NEARBY"
    package static var watchNearby: Bool { DeviceEnvironment.value(watchNearbyVariable) == "1" }

    /// `foreground`, `background`, or nil when no OS launched the app.
    package static var mode: String? { DeviceEnvironment.value(modeVariable) }
    package static var reason: String? { DeviceEnvironment.value(reasonVariable) }

    /// The workout event this launch was for, if any (nil also when the variable is not hex of a property
    /// list dictionary with a `kind`: a launch is not refused for it).
    package static var workoutEvent: UserInfo? {
        guard let text = DeviceEnvironment.value(workoutVariable), let bytes = bytes(fromHex: text),
            let event = try? PropertyListCodec.decodeDictionary(bytes), event["kind"]?.stringValue != nil
        else { return nil }
        return event
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0, utf8.count <= 16_384 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// A workout session runs in the app or ended (`AppNotice.workout`): the OS keeps an app
    /// running a workout alive in the background (no budget runs).
    package static func reportWorkout(running: Bool) {
        guard getenv(PhoneActivation.osPIDVariable) != nil else { return }
        ServiceNotifier.notify("\(AppNotice.workout(running: running).line)\nMAINPID=\(getpid())")
    }

    /// Tells the OS the app completed its background task (only under an OS).
    package static func reportTaskCompleted() {
        DeviceHost.current?.recordSystemCall("backgroundTaskCompleted", kind: "watchKit")
        tellOS(.taskCompleted)
    }

    /// Tells the OS a background task was handed to the app's delegate.
    package static func reportTaskHanded(_ kind: String) {
        DeviceHost.current?.recordSystemCall("backgroundTaskHanded", kind: kind)
        tellOS(.taskHanded)
    }

    /// Tells the OS when the app wants its next background refresh (device time, seconds since 1970).
    package static func reportRefreshScheduled(at seconds: Double) { tellOS(.refreshScheduled(at: seconds)) }

    /// Tells the OS the app asked for a reload of `kind` (one line, at most 200 bytes of it).
    package static func reportReload(_ kind: String) { AppNotifier.reportReload(kind) }

    /// Tells the OS the app played a haptic.
    package static func reportHaptic(_ type: String) {
        DeviceHost.current?.recordSystemCall("haptic", kind: AppNotice.word(type))
        tellOS(.haptic(type: type))
    }

    /// Whether an OS (phone-os, watch-os) launched this process.
    package static var isUnderOS: Bool { AppNotifier.isUnderOS }

    /// Tells the OS `notice` (only under an OS): its one line (`AppNotice.line`), and the app's pid.
    package static func tellOS(_ notice: AppNotice) { AppNotifier.tell(notice) }
}
