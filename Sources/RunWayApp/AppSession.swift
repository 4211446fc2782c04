import JSONText
import Posix
import PropertyLists
import WatchConnectivity
import RunWayDomain

/// RunWay's view of `WCSession.default`: Apple's API where it is enough, and the simulator's typed
/// extensions on the hot path (`WCSession+RunWayPair.swift`). Everything the RunWay apps know of their
/// session goes through here — the public `WatchConnectivity` module, nothing of the device's internals.
final class AppSession {
    let wc: WCSession

    init(_ session: WCSession = .default) { wc = session }

    var isActivated: Bool { wc.activationState == .activated }
    /// `notActivated`, `inactive` or `activated`, as the tools print it.
    var activationStateName: String { wc.activationStateName }
    var isPaired: Bool { wc.isPaired }
    var isWatchAppInstalled: Bool { wc.isWatchAppInstalled }
    var isReachable: Bool { wc.isReachable }
    var deviceID: String { wc.deviceIdentifier }

    var applicationContext: UserInfo { wc.typedApplicationContext }
    var receivedApplicationContext: UserInfo { wc.typedReceivedApplicationContext }

    /// Sets the context; returns its version.
    @discardableResult
    func updateApplicationContext(_ context: UserInfo) throws -> Int64 { try wc.updateApplicationContext(typed: context) }

    func sendMessage(_ message: UserInfo, replyExpected: Bool = true, completion: @escaping (Result<UserInfo, WCError>) -> Void) {
        wc.sendMessage(typed: message, replyExpected: replyExpected, completion: completion)
    }

    // MARK: - Versions (RunWay 1.4: each side says its version)

    var appVersion: String { wc.localAppVersion }
    var counterpartAppVersion: String? { wc.counterpartAppVersion }

    /// Whether this app and the counterpart's differ (trailing `.0`s ignored); nil until a first
    /// handshake told us the counterpart's version.
    var versionMismatch: Bool? { counterpartAppVersion.map { AppVersion.differ(appVersion, $0) } }

    /// `appVersion`, the peer's version (`watchAppVersion` or `phoneAppVersion`) and `versionMismatch`,
    /// each `null` until a first handshake.
    func versionFields(peerKey: String) -> [String: JSONValue] {
        [
            "appVersion": .string(appVersion),
            peerKey: counterpartAppVersion.map(JSONValue.string) ?? .null,
            "versionMismatch": versionMismatch.map(JSONValue.bool) ?? .null,
        ]
    }

    // MARK: - The watch app's own state, as the watch's system reports it

    var isLocalAppInstalled: Bool { wc.isLocalAppInstalled }
    var isLocalAppActive: Bool { wc.isLocalAppActive }
    func bringToForeground() throws { try wc.bringLocalAppToForeground() }
}
