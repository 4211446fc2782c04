// Written for iOS and watchOS as developers write it (from Apple's documentation of WCSession and
// WCSessionDelegate), and compiled unchanged on Linux against this project's WatchConnectivity: in
// Swift 5 mode (this target) and in Swift 6 mode (WatchConnectivitySwift6Tests links the same file).
// Nothing in it is written for the simulator.

import Foundation
import WatchConnectivity

/// Keeps the water-intake log in step between the iPhone app and its Watch app.
final class WaterLogSessionManager: NSObject, WCSessionDelegate {
    private let session: WCSession? = WCSession.isSupported() ? WCSession.default : nil
    private(set) var received: [[String: Any]] = []
    private(set) var lastActivation: (state: WCSessionActivationState, error: Error?)?
    private(set) var finished: [(transfer: WCSessionUserInfoTransfer, error: Error?)] = []
    var onActivation: (() -> Void)?
    var onFinish: (() -> Void)?

    func start() {
        session?.delegate = self
        session?.activate()
    }

    // MARK: - Sending

    func log(millilitres: Int, at date: Date = Date()) {
        guard let session = session, session.activationState == .activated else { return }
        let entry: [String: Any] = ["ml": millilitres, "at": date, "id": UUID().uuidString]
        if session.isReachable {
            session.sendMessage(
                entry,
                replyHandler: { reply in
                    print("phone took it: \(reply["ok"] as? Bool ?? false)")
                },
                errorHandler: { error in
                    // Not reachable after all: queue it instead (the counterpart dedups by id).
                    if let wcError = error as? WCError, wcError.code == .notReachable {
                        session.transferUserInfo(entry)
                    }
                })
        } else {
            session.transferUserInfo(entry)
        }
        do {
            try session.updateApplicationContext(["total": millilitres, "updated": date])
        } catch {
            print("context not updated: \((error as NSError).domain) \((error as NSError).code)")
        }
    }

    func sendRaw(_ data: Data) {
        session?.sendMessageData(data, replyHandler: nil, errorHandler: { error in print(error.localizedDescription) })
    }

    func exportLog(_ url: URL) -> Double? {
        guard let transfer = session?.transferFile(url, metadata: ["kind": "log"]) else { return nil }
        return transfer.progress.fractionCompleted
    }

    func cancelEverythingQueued() {
        session?.outstandingUserInfoTransfers.filter(\.isTransferring).forEach { $0.cancel() }
        session?.outstandingFileTransfers.forEach { $0.cancel() }
    }

    func refreshComplication(total: Int) {
        #if os(iOS)
            guard let session = session, session.isComplicationEnabled, session.remainingComplicationUserInfoTransfers > 0 else { return }
            session.transferCurrentComplicationUserInfo(["total": total])
        #endif
    }

    var watchFolder: URL? {
        #if os(iOS)
            return session?.watchDirectoryURL
        #else
            return nil
        #endif
    }

    var phoneHasTheApp: Bool {
        #if os(watchOS)
            return session?.isCompanionAppInstalled ?? false
        #else
            return session?.isPaired == true && session?.isWatchAppInstalled == true
        #endif
    }

    // MARK: - WCSessionDelegate

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        lastActivation = (activationState, error)
        if let error = error {
            print("activation failed: \(error.localizedDescription)")
        }
        onActivation?()
    }

    #if os(iOS)
        func sessionDidBecomeInactive(_ session: WCSession) {}

        func sessionDidDeactivate(_ session: WCSession) {
            // The user switched watches: talk to the new one.
            session.activate()
        }

        func sessionWatchStateDidChange(_ session: WCSession) {
            print("paired \(session.isPaired), installed \(session.isWatchAppInstalled)")
        }
    #endif

    func sessionReachabilityDidChange(_ session: WCSession) {
        print("reachable: \(session.isReachable)")
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any] = [:]) {
        // Saved here, before returning: the transfer is acknowledged once this returns.
        received.append(userInfo)
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        received.append(message)
        replyHandler(["ok": true])
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        received.append(message)
    }

    func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        replyHandler(Data(messageData.reversed()))
    }

    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        print("total now \(applicationContext["total"] as? Int ?? 0)")
    }

    func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: Error?) {
        finished.append((userInfoTransfer, error))
        onFinish?()
    }

    func session(_ session: WCSession, didReceive file: WCSessionFile) {
        let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
        try? FileManager.default.moveItem(at: file.fileURL, to: documents.appendingPathComponent(file.fileURL.lastPathComponent))
    }

    func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: Error?) {
        if let error = error { print("file failed: \(error)") }
    }
}
