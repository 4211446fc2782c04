// An iPhone app's delegate, written for iOS only (no #if): it implements the methods iOS requires of a
// phone's delegate (sessionDidBecomeInactive, sessionDidDeactivate) and the phone's state callbacks.
// Compiled unchanged here in Swift 5 and Swift 6 modes.

import Foundation
import WatchConnectivity

class PhoneOnlySessionDelegate: NSObject, WCSessionDelegate {
    var states: [String] = []

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        states.append("activation \(activationState.rawValue)")
    }

    func sessionDidBecomeInactive(_ session: WCSession) {
        states.append("inactive")
    }

    func sessionDidDeactivate(_ session: WCSession) {
        states.append("deactivated")
        WCSession.default.activate()
    }

    func sessionWatchStateDidChange(_ session: WCSession) {
        states.append("watch \(session.isPaired) \(session.isWatchAppInstalled) \(session.isComplicationEnabled)")
    }
}
