import AppHost
import Connectivity
import Posix
import PropertyLists

/// What phone-os does with a watch's `hello` while the app is not running: the whole rule, pure.
///
/// Something pending — a message (`pendingMessages`), transfers (`pendingTransfers`), an application
/// context (`pendingContext`) or a workout the watch mirrors (`pendingWorkoutMirroring`) — launches the app
/// in the background, unless the user force-quit it. So does the phone's own outbox (`own`: transfers or
/// an application context it sent that the watch has not acknowledged, while the watch's app is
/// installed): the service that sends them runs in the app's process, as watch-os launches the watch's
/// app for the watch's own queue. Without it, a phone app reclaimed between sending its context and the
/// watch's acknowledgement left the context pending for ever, nothing ever launching the app again. A message under force-quit is turned away with
/// `notReachable` (7007), so the watch's `sendMessage` fails at once rather than at its time-out; transfers
/// under force-quit, or nothing pending, are declined silently (the watch retries with its backoff). While
/// the app is backed off after failed launches (`AppSupervision`), the same: a message is turned away
/// with 7007, transfers wait.
enum PhoneOSLaunchRule: Equatable {
    case launch(reasonKey: String, reason: String)
    case decline(reason: String, error: WCError?)

    /// What the phone's own session has queued for the watch and not had acknowledged.
    struct OwnOutbox: Equatable {
        var transfers: Int64 = 0
        var context = false
        var isEmpty: Bool { transfers == 0 && !context }
    }

    static func decide(
        _ hello: Handshake, forceQuit: Bool, backingOff: String? = nil, installed: Bool = true, lockedAfterReboot: Bool = false,
        activeWatch: String? = nil, pairedWatches: [String] = [], own: OwnOutbox = OwnOutbox()
    ) -> PhoneOSLaunchRule {
        let messages = hello.pendingMessages, transfers = hello.pendingTransfers
        // Only the active watch talks to the phone: another paired one waits (its queue kept) until it is
        // switched to; one not paired at all is told so. Either way the app is not woken for it.
        if let activeWatch, hello.deviceID != activeWatch {
            return pairedWatches.contains(hello.deviceID)
                ? .decline(
                    reason: "watch \(hello.deviceID) is not the active watch",
                    error: WCError(.notReachable, "watch \(hello.deviceID) is paired with this phone but is not its active watch (runway phone switch-watch)"))
                : .decline(
                    reason: "watch \(hello.deviceID) is not paired", error: WCError(.deviceNotPaired, "watch \(hello.deviceID) is not paired with this phone"))
        }
        // Deleted: the watch hears so whatever it has (its isCompanionAppInstalled; 7018 to its calls).
        if !installed {
            return .decline(
                reason: "the app is not installed", error: WCError(.companionAppNotInstalled, "the RunWay app is not installed on the iPhone"))
        }
        // Restarted and not unlocked since: nothing reaches the phone (iOSDeviceNeedsUnlockAfterRebootForReachability).
        if lockedAfterReboot {
            return .decline(
                reason: "the phone has not been unlocked since it restarted",
                error: WCError(.notReachable, "the iPhone has not been unlocked since it restarted", lockedAfterReboot: true))
        }
        let mirroring = hello.pendingWorkoutMirroring, context = hello.pendingContext
        let watchHasNothing = messages == 0 && transfers == 0 && !mirroring && !context
        if watchHasNothing && own.isEmpty {
            return .decline(reason: "the watch has nothing pending", error: nil)
        }
        if let backingOff, !forceQuit {
            return .decline(
                reason: backingOff, error: messages > 0 ? WCError(.notReachable, "the phone app is failing to launch: \(backingOff)") : nil)
        }
        if forceQuit {
            let reason = "force-quit by the user: no background launch until the app is opened"
            return .decline(
                reason: reason,
                error: messages > 0
                    ? WCError(.notReachable, "the phone app was force-quit by the user: iOS does not launch it until it is opened")
                    : nil)
        }
        if messages > 0 {
            return .launch(
                reasonKey: "message",
                reason: "watch connected with \(messages) message(s) to send"
                    + (transfers > 0 ? " and \(transfers) transfer(s) pending" : ""))
        }
        if watchHasNothing {
            return own.transfers > 0
                ? .launch(reasonKey: "phone-transfer", reason: "the phone has \(own.transfers) transfer(s) queued for the watch, in range")
                : .launch(reasonKey: "context-for-watch", reason: "the phone has an application context pending for the watch, in range")
        }
        if transfers == 0 && mirroring {
            return .launch(reasonKey: "workout-mirroring", reason: "watch connected with a mirrored workout session to start")
        }
        // A pending application context is content like any other (issue 50).
        if transfers == 0 {
            return .launch(reasonKey: "watch-context", reason: "watch connected with an application context pending")
        }
        return .launch(reasonKey: "watch-transfer", reason: "watch connected with \(transfers) transfer(s) pending")
    }

    /// Declines a peeked connection without an error: the `hello` is read, and an `appState` frame says
    /// the app is installed but not running (a watch that heard 7018 before learns it is back), then the
    /// caller closes.
    static func tellInstalled(_ fd: FileDescriptor, helloLength: Int) {
        var sink = [UInt8](repeating: 0, count: helloLength)
        _ = try? fd.receive(into: &sink)
        let frame = Frame(.appState, PropertyListCodec.encode(["appInstalled": .bool(true), "appActive": .bool(false)])).encoded
        fd.sendNow(frame)
    }

    /// Turns a peeked connection away with `error`: the `hello` is read (so the close is orderly), then an
    /// `error` frame is written before the descriptor is closed by the caller.
    static func refuse(_ fd: FileDescriptor, helloLength: Int, _ error: WCError) {
        var sink = [UInt8](repeating: 0, count: helloLength)
        _ = try? fd.receive(into: &sink)
        let frame = Frame(.error, ErrorFrame.encode(error)).encoded
        fd.sendNow(frame)
    }
}
