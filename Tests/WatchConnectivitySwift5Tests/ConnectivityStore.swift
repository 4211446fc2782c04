// An iOS/watchOS session manager in the shape SwiftUI apps give it — an ObservableObject publishing the
// session's reachability and what arrived — importing only Foundation and WatchConnectivity, as on
// Apple's platforms (where Foundation brings Combine's ObservableObject and @Published). Compiled
// unchanged in Swift 5 and Swift 6 modes; nothing in it is written for the simulator.

import Foundation
import WatchConnectivity

@MainActor
final class ConnectivityStore: NSObject, ObservableObject {
    @Published private(set) var isReachable = false
    @Published private(set) var isActivated = false
    @Published private(set) var receivedMessages: [String] = []
    @Published private(set) var contextKeys: [String] = []

    private let session: WCSession

    init(session: WCSession = .default) {
        self.session = session
        super.init()
        guard WCSession.isSupported() else { return }
        session.delegate = self
        session.activate()
    }

    func send(_ text: String) {
        guard session.activationState == .activated else { return }
        if session.isReachable {
            session.sendMessage(["text": text], replyHandler: nil) { [session] _ in
                session.transferUserInfo(["text": text])
            }
        } else {
            session.transferUserInfo(["text": text])
        }
    }

    private func received(_ payload: [String: Any]) {
        guard let text = payload["text"] as? String else { return }
        receivedMessages.append(text)
    }
}

extension ConnectivityStore: WCSessionDelegate {
    nonisolated func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        let reachable = session.isReachable
        Task { @MainActor in
            self.isActivated = activationState == .activated
            self.isReachable = reachable
        }
    }

    nonisolated func sessionReachabilityDidChange(_ session: WCSession) {
        let reachable = session.isReachable
        Task { @MainActor in self.isReachable = reachable }
    }

    nonisolated func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        let text = message["text"] as? String
        Task { @MainActor in self.received(["text": text as Any]) }
    }

    nonisolated func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        let text = userInfo["text"] as? String
        Task { @MainActor in self.received(["text": text as Any]) }
    }

    nonisolated func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        let keys = applicationContext.keys.sorted()
        Task { @MainActor in self.contextKeys = keys }
    }

    #if os(iOS)
        nonisolated func sessionDidBecomeInactive(_ session: WCSession) {}
        nonisolated func sessionDidDeactivate(_ session: WCSession) { session.activate() }
    #endif
}
