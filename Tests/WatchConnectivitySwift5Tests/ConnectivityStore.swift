// An iOS/watchOS session manager in the shape SwiftUI apps give it — an ObservableObject publishing the
// session's reachability and what arrived — importing only Foundation and WatchConnectivity, as on
// Apple's platforms (where Foundation brings Combine's ObservableObject and @Published). Compiled
// unchanged in Swift 5 and Swift 6 modes, and hosted on the pair by manager-app (--connectivity-store);
// nothing in it is written for the simulator.

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

    func send(_ id: String) {
        guard session.activationState == .activated else { return }
        if session.isReachable {
            session.sendMessage(["id": id], replyHandler: nil) { [session] _ in
                session.transferUserInfo(["id": id])
            }
        } else {
            session.transferUserInfo(["id": id])
        }
    }

    private func received(_ id: String?) {
        guard let id = id else { return }
        receivedMessages.append(id)
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
        let id = message["id"] as? String
        Task { @MainActor in self.received(id) }
    }

    nonisolated func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        let id = userInfo["id"] as? String
        Task { @MainActor in self.received(id) }
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
