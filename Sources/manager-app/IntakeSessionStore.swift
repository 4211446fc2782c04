// A phone app's session manager in the idioms real apps use: an ObservableObject a SwiftUI list binds to,
// key-value observing of the session, os.Logger — and each received entry saved before its callback
// returns, then published on the main queue. It imports only Foundation, WatchConnectivity and os. Hosted
// on the simulated pair by manager-app (the integration tests kill it), and compiled unchanged in Swift 5
// and Swift 6 modes by WatchConnectivitySwift5Tests/6Tests (the same file, linked).

import Foundation
import WatchConnectivity
import os

final class IntakeSessionStore: NSObject, ObservableObject, WCSessionDelegate, @unchecked Sendable {
    /// Entries as the list shows them: those saved before this launch, then each arrival.
    @Published private(set) var entries: [String] = []
    @Published private(set) var isReachable = false
    /// What the session said inside `activationDidComplete`.
    @Published private(set) var stateAtActivation = ""

    private let logger = Logger(subsystem: "com.example.intake", category: "session")
    private var receivedThisLaunch = 0
    private let journal: URL
    private let activations: URL
    private var observations: [NSKeyValueObservation] = []

    init(directory: URL) {
        journal = directory.appendingPathComponent("entries.log")
        activations = directory.appendingPathComponent("activations.log")
        super.init()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let saved = try? String(contentsOf: journal, encoding: .utf8) {
            entries = saved.split(separator: "\n").map(String.init)
        }
    }

    func start(_ session: WCSession = .default) {
        observations = [
            session.observe(\.activationState, options: [.initial, .new]) { [weak self] _, change in
                guard let state = change.newValue else { return }
                self?.logger.debug("activation state \(state.rawValue)")
            },
            session.observe(\.isReachable, options: [.new]) { [weak self] _, change in
                guard let reachable = change.newValue else { return }
                DispatchQueue.main.async { self?.isReachable = reachable }
            },
            session.observe(\.hasContentPending, options: [.old, .new]) { [weak self] _, change in
                self?.logger.info("content pending: \(change.oldValue ?? false) -> \(change.newValue ?? false)")
            },
        ]
        session.delegate = self
        session.activate()
    }

    // MARK: - WCSessionDelegate

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {
        if let error = error {
            logger.error("activation failed: \(error.localizedDescription, privacy: .public)")
            return
        }
        var state = "state=\(activationState.rawValue) reachable=\(session.isReachable)"
        #if !os(watchOS)
            state +=
                " paired=\(session.isPaired) installed=\(session.isWatchAppInstalled) complication=\(session.isComplicationEnabled)"
                + " remaining=\(session.remainingComplicationUserInfoTransfers)"
        #endif
        logger.notice("activated: \(state, privacy: .public)")
        ReceiptLog.activated(reachable: session.isReachable)
        append(state, to: activations)
        let reachable = session.isReachable
        DispatchQueue.main.async {
            self.stateAtActivation = state
            self.isReachable = reachable
        }
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard let id = userInfo["id"] as? String else {
            logger.error("an entry without an id: \(userInfo.keys.sorted().joined(separator: ","), privacy: .public)")
            return
        }
        // Saved before returning: the session acknowledges the transfer once this returns.
        append(id, to: journal)
        receivedThisLaunch += 1
        ReceiptLog.received(id, total: receivedThisLaunch)
        DispatchQueue.main.async { self.entries.append(id) }
    }

    func sessionReachabilityDidChange(_ session: WCSession) {
        logger.info("reachable: \(session.isReachable)")
    }

    #if !os(watchOS)
        func sessionDidBecomeInactive(_ session: WCSession) {}
        func sessionDidDeactivate(_ session: WCSession) { session.activate() }
    #endif

    private func append(_ line: String, to url: URL) {
        do {
            if !FileManager.default.fileExists(atPath: url.path) {
                FileManager.default.createFile(atPath: url.path, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data((line + "\n").utf8))
            try handle.synchronize()
        } catch {
            logger.fault("could not save to \(url.lastPathComponent, privacy: .public): \(error, privacy: .public)")
            ReceiptLog.failed(error)
        }
    }
}
