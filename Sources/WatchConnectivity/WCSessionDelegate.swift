import Foundation

/// The session's callbacks, with Apple's names and signatures: every method of Apple's
/// `WCSessionDelegate`, iOS's and watchOS's alike (one module serves both devices here), each but
/// `session(_:activationDidCompleteWith:error:)` with an empty default — so a delegate written for iOS,
/// or a shared file whose `#if os(iOS)` parts are compiled out on Linux, conforms unchanged.
///
/// The calls arrive one at a time on one thread that is not the main thread (the device's delegate
/// queue). A received userInfo is acknowledged to its sender only after `session(_:didReceiveUserInfo:)`
/// returns: save it inside the callback, not later (RunWay 1.3's lesson, as a contract).
public protocol WCSessionDelegate: NSObjectProtocol {
    /// Activation finished: `activationState` is `.activated`, or it failed with `error`.
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: (any Error)?)
    /// iOS: the session became inactive (the paired watch is being switched); `sessionDidDeactivate`
    /// follows once every pending callback was delivered.
    func sessionDidBecomeInactive(_ session: WCSession)
    /// iOS: the session is deactivated; call `activate()` again to talk to the newly paired watch.
    func sessionDidDeactivate(_ session: WCSession)
    /// iOS: `isPaired`, `isWatchAppInstalled`, `isComplicationEnabled` or `watchDirectoryURL` changed.
    func sessionWatchStateDidChange(_ session: WCSession)
    /// watchOS: the iOS companion app was installed or removed (`isCompanionAppInstalled`).
    func sessionCompanionAppInstalledDidChange(_ session: WCSession)
    /// `isReachable` changed.
    func sessionReachabilityDidChange(_ session: WCSession)

    /// A message whose sender expects no reply.
    func session(_ session: WCSession, didReceiveMessage message: [String: Any])
    /// A message whose sender waits for `replyHandler` (call it once).
    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void)
    /// A data message whose sender expects no reply.
    func session(_ session: WCSession, didReceiveMessageData messageData: Data)
    /// A data message whose sender waits for `replyHandler`.
    func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void)

    /// The counterpart's newest application context (`receivedApplicationContext` holds it).
    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any])

    /// A transfer this app started finished: delivered (`error` nil) or failed.
    func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: (any Error)?)
    /// A userInfo dictionary arrived. It is acknowledged once this returns.
    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any])

    /// A file transfer this app started finished.
    func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: (any Error)?)
    /// A file arrived: move it before returning, or it is deleted.
    func session(_ session: WCSession, didReceive file: WCSessionFile)
}

extension WCSessionDelegate {
    // The defaults of the methods Apple declares `@objc optional`: where Apple's session asks whether the
    // delegate responds to the selector, these tell the session they were reached — the delegate does not
    // implement the method — so that it answers as Apple's does (a message: `deliveryFailed` 7014 to its
    // sender; `docs/protocol.md`, "Differences from Apple").
    public func sessionDidBecomeInactive(_ session: WCSession) { session.delegateLacks(.sessionDidBecomeInactive) }
    public func sessionDidDeactivate(_ session: WCSession) { session.delegateLacks(.sessionDidDeactivate) }
    public func sessionWatchStateDidChange(_ session: WCSession) {}
    public func sessionCompanionAppInstalledDidChange(_ session: WCSession) {}
    public func sessionReachabilityDidChange(_ session: WCSession) {}
    public func session(_ session: WCSession, didReceiveMessage message: [String: Any]) { session.delegateLacks(.didReceiveMessage) }
    public func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        session.delegateLacks(.didReceiveMessageWithReply)
    }
    public func session(_ session: WCSession, didReceiveMessageData messageData: Data) { session.delegateLacks(.didReceiveMessageData) }
    public func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        session.delegateLacks(.didReceiveMessageDataWithReply)
    }
    public func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        session.delegateLacks(.didReceiveApplicationContext)
    }
    public func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: (any Error)?) {}
    public func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) { session.delegateLacks(.didReceiveUserInfo) }
    public func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: (any Error)?) {}
    public func session(_ session: WCSession, didReceive file: WCSessionFile) { session.delegateLacks(.didReceiveFile) }
}

/// The delegate's methods whose absence the session acts on, by the name Apple's documentation gives them.
enum DelegateMethod: String {
    case sessionDidBecomeInactive = "sessionDidBecomeInactive(_:)"
    case sessionDidDeactivate = "sessionDidDeactivate(_:)"
    case didReceiveMessage = "session(_:didReceiveMessage:)"
    case didReceiveMessageWithReply = "session(_:didReceiveMessage:replyHandler:)"
    case didReceiveMessageData = "session(_:didReceiveMessageData:)"
    case didReceiveMessageDataWithReply = "session(_:didReceiveMessageData:replyHandler:)"
    case didReceiveApplicationContext = "session(_:didReceiveApplicationContext:)"
    case didReceiveUserInfo = "session(_:didReceiveUserInfo:)"
    case didReceiveFile = "session(_:didReceive:)"
}
