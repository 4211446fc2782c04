import Foundation
import WatchConnectivity

/// The watch's side: each glass logged is sent to the phone with `transferUserInfo` (queued by the
/// system, delivered even if the phone app is not running).
public final class WatchSessionManager: NSObject, WCSessionDelegate {
    private let glassesAtLaunch: Int

    /// `glassesAtLaunch`: how many glasses to log once the session is active (a stand-in for the user's
    /// taps), the first time this app ever runs.
    public init(glassesAtLaunch: Int) {
        self.glassesAtLaunch = glassesAtLaunch
    }

    public func start() {
        WCSession.default.delegate = self
        WCSession.default.activate()
    }

    public func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        guard activationState == .activated, glassesAtLaunch > 0 else { return }
        let done = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("logged")
        guard !FileManager.default.fileExists(atPath: done.path) else { return }
        for glass in 1...glassesAtLaunch {
            let entry = WaterEntry(id: "glass-\(glass)", millilitres: 250, loggedAt: Date())
            session.transferUserInfo(entry.userInfo)
        }
        try? FileManager.default.createDirectory(at: done.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: done.path, contents: Data("\(glassesAtLaunch)\n".utf8))
    }

    public func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: Error?) {
        if let error { print("WaterWatch: a glass did not reach the phone: \(error)") }
    }
}
