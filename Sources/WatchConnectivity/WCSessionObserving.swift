@_spi(RunWayPair) import KeyValueObserving
import Foundation

// MARK: - Key-value observing of the session and of a file transfer's progress

extension WCSession {
    /// The session's state may have changed (a delegate call is about to be made or was just made): its
    /// observers (`observe(\.isReachable)` …) read their key paths again, on the delegate queue, and hear
    /// of what changed. Costs nothing while nothing observes the session.
    func stateMayHaveChanged() {
        guard KeyValueObservingCenter.isObserved(self) else { return }
        KeyValueObservingCenter.valuesMayHaveChanged(of: self)
    }

    /// The same from the app's thread (after a call that spends today's complication budget): the check
    /// runs on the delegate queue, where handlers run.
    func stateMayHaveChangedLater() {
        guard KeyValueObservingCenter.isObserved(self) else { return }
        later { [weak self] in self?.stateMayHaveChanged() }
    }
}

/// A file transfer's progress: a `Progress` that tells its observers (`observe(\.fractionCompleted)`,
/// `\.completedUnitCount`, `\.isFinished`, `\.isCancelled`) when its counts move or it is cancelled.
final class TransferProgress: Progress, @unchecked Sendable {
    override var completedUnitCount: Int64 {
        didSet { changed() }
    }

    override var totalUnitCount: Int64 {
        didSet { changed() }
    }

    override func cancel() {
        super.cancel()
        changed()
    }

    private func changed() {
        guard KeyValueObservingCenter.isObserved(self) else { return }
        KeyValueObservingCenter.valuesMayHaveChanged(of: self)
    }
}
