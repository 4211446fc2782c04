import Connectivity
import Testing

@testable import OSProcess

/// phone-os's pure rules for the app's install state and the phone's lock: what a watch's `hello` gets
/// from a phone whose app is deleted (7018) or that was not unlocked since it restarted (7007, marked),
/// and how versions compare (an update over an older one, never a downgrade).
@Suite struct PhoneOSRulesTests {
    let hello: Handshake = {
        var hello = Handshake(role: .watch, deviceID: "W", pairingID: "P", appVersion: "1.4", resumeSeq: 0)
        hello.pendingTransfers = 3
        return hello
    }()

    @Test func aDeletedAppOrAPhoneLockedSinceItsRestartLaunchesNothingAndSaysWhy() {
        guard case let .decline(_, error?) = PhoneOSLaunchRule.decide(hello, forceQuit: false, installed: false) else {
            Issue.record("a deleted app was launched")
            return
        }
        #expect(error.code == .companionAppNotInstalled && !error.lockedAfterReboot)
        guard case let .decline(_, locked?) = PhoneOSLaunchRule.decide(hello, forceQuit: false, lockedAfterReboot: true) else {
            Issue.record("a phone locked since its restart launched the app")
            return
        }
        #expect(locked.code == .notReachable && locked.lockedAfterReboot)
        #expect((try? ErrorFrame.decode(ErrorFrame.encode(locked)))?.lockedAfterReboot == true, "the mark travels in the error frame")
        var idle = hello
        idle.pendingTransfers = 0
        #expect(PhoneOSLaunchRule.decide(idle, forceQuit: false) == .decline(reason: "the watch has nothing pending", error: nil))
        if case let .decline(_, error?) = PhoneOSLaunchRule.decide(idle, forceQuit: false, installed: false) {
            #expect(error.code == .companionAppNotInstalled, "even with nothing pending, the watch hears the app is gone")
        } else {
            Issue.record("a deleted app with nothing pending: no 7018")
        }
        #expect(PhoneOSLaunchRule.decide(hello, forceQuit: false) == .launch(reasonKey: "watch-transfer", reason: "watch connected with 3 transfer(s) pending"))
    }

    /// The phone's own outbox launches the app when the watch comes in range, as watch-os does for the
    /// watch's: a context or transfers the phone sent and the watch has not acknowledged are sent by the
    /// service in the app's process. Force-quit, backed off or another watch: no launch, as for the watch's.
    @Test func thePhonesOwnOutboxLaunchesTheAppWhenTheWatchIsInRange() {
        var idle = hello
        idle.pendingTransfers = 0
        let context = PhoneOSLaunchRule.OwnOutbox(context: true), queued = PhoneOSLaunchRule.OwnOutbox(transfers: 2, context: true)
        #expect(
            PhoneOSLaunchRule.decide(idle, forceQuit: false, own: context)
                == .launch(reasonKey: "context-for-watch", reason: "the phone has an application context pending for the watch, in range"))
        #expect(
            PhoneOSLaunchRule.decide(idle, forceQuit: false, own: queued)
                == .launch(reasonKey: "phone-transfer", reason: "the phone has 2 transfer(s) queued for the watch, in range"))
        #expect(
            PhoneOSLaunchRule.decide(idle, forceQuit: false, own: PhoneOSLaunchRule.OwnOutbox())
                == .decline(reason: "the watch has nothing pending", error: nil))
        #expect(
            PhoneOSLaunchRule.decide(hello, forceQuit: false, own: context)
                == .launch(reasonKey: "watch-transfer", reason: "watch connected with 3 transfer(s) pending"))
        if case .launch = PhoneOSLaunchRule.decide(idle, forceQuit: true, own: queued) { Issue.record("a force-quit app was launched for its own queue") }
        if case .launch = PhoneOSLaunchRule.decide(idle, forceQuit: false, backingOff: "failing", own: queued) { Issue.record("a backed-off app was launched") }
        if case .launch = PhoneOSLaunchRule.decide(idle, forceQuit: false, activeWatch: "OTHER", pairedWatches: ["W", "OTHER"], own: queued) {
            Issue.record("an inactive watch's hello launched the app for the active watch's queue")
        }
    }

    /// Apple: "If your iOS app isn't running, the system launches it in the background" when the watch
    /// starts mirroring a workout session. A `hello` that says so launches the app, and survives its
    /// encoding; under force-quit it is declined, as transfers are.
    @Test func aWatchMirroringAWorkoutLaunchesThePhoneApp() throws {
        var mirroring = hello
        mirroring.pendingTransfers = 0
        mirroring.pendingWorkoutMirroring = true
        let decoded = try Handshake(decoding: mirroring.encoded)
        #expect(decoded.pendingWorkoutMirroring)
        #expect(try !Handshake(decoding: hello.encoded).pendingWorkoutMirroring)
        #expect(
            PhoneOSLaunchRule.decide(decoded, forceQuit: false)
                == .launch(reasonKey: "workout-mirroring", reason: "watch connected with a mirrored workout session to start"))
        if case .launch = PhoneOSLaunchRule.decide(decoded, forceQuit: true) { Issue.record("a force-quit app was launched for a mirror") }
    }

    @Test func versionsComparePartByPart() {
        func v(_ text: String) -> VersionNumber? { VersionNumber(text) }
        #expect(v("1.4")! < v("1.5")!)
        #expect(v("1.10")! > v("1.9")!)
        #expect(v("1.4") == v("1.4.0"))
        #expect(v("2")! > v("1.9999.9999.9999")!)
        for bad in ["", "1.", ".1", "1..2", "1.2.3.4.5", "12345", "1.x", "-1", "１"] { #expect(v(bad) == nil, "\(bad)") }
    }
}
