// A second phone app, for the other mix: your phone app with RunWay's watch. RunWay's watch sends each
// recorded run as a userInfo with `type: "flight"` and an `id`; this app keeps the ids (Documents/runs.log),
// saved before the callback returns.
import Foundation
import WaterLogKit
import WatchConnectivity

final class RunReceiver: NSObject, WCSessionDelegate, @unchecked Sendable {
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard userInfo["type"] as? String == "flight", let id = userInfo["id"] as? String else { return }
        try? LineLog(name: "runs.log").append(id)
    }
}

let receiver = RunReceiver()
WCSession.default.delegate = receiver
WCSession.default.activate()
RunLoop.main.run()
