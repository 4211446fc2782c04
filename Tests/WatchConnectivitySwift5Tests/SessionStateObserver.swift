// A manager that watches the session with key-value observing, as Apple's samples do: the activation
// state, whether content is pending, and a file transfer's progress. Compiled unchanged in Swift 5 and
// Swift 6 modes.

import Foundation
import WatchConnectivity

final class SessionStateObserver: NSObject, WCSessionDelegate {
    private var observations: [NSKeyValueObservation] = []
    private let lock = NSLock()
    private var _states: [WCSessionActivationState] = []
    private var _pending: [Bool] = []
    private var _fractions: [Double] = []

    var states: [WCSessionActivationState] { lock.lock(); defer { lock.unlock() }; return _states }
    var pending: [Bool] { lock.lock(); defer { lock.unlock() }; return _pending }
    var fractions: [Double] { lock.lock(); defer { lock.unlock() }; return _fractions }

    func start(_ session: WCSession = .default) {
        observations.append(
            session.observe(\.activationState, options: [.initial, .new]) { [weak self] _, change in
                guard let self = self, let state = change.newValue else { return }
                self.lock.lock()
                self._states.append(state)
                self.lock.unlock()
            })
        observations.append(
            session.observe(\.hasContentPending, options: [.new, .old]) { [weak self] _, change in
                guard let self = self, let pending = change.newValue else { return }
                self.lock.lock()
                self._pending.append(pending)
                self.lock.unlock()
            })
        session.delegate = self
        session.activate()
    }

    @discardableResult
    func send(_ file: URL) -> WCSessionFileTransfer {
        let transfer = WCSession.default.transferFile(file, metadata: ["name": file.lastPathComponent])
        observations.append(
            transfer.progress.observe(\.fractionCompleted, options: [.new]) { [weak self] progress, _ in
                guard let self = self else { return }
                self.lock.lock()
                self._fractions.append(progress.fractionCompleted)
                self.lock.unlock()
            })
        return transfer
    }

    func stop() {
        observations.forEach { $0.invalidate() }
        observations.removeAll()
    }

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: Error?) {}

    #if os(iOS)
        func sessionDidBecomeInactive(_ session: WCSession) {}
        func sessionDidDeactivate(_ session: WCSession) { session.activate() }
    #endif
}
