import Connectivity
import Posix

/// The watch app's side of a finished run (RunWay's `sendRunningData`): finished flights wait in
/// `pendingFlightQueue`; once the session is activated each becomes a queued userInfo transfer and
/// the queue empties. The transfers then belong to the session's durable outbox.
public final class WatchRunRecorder {
    public let session: Session
    public private(set) var pendingFlightQueue: [Flight] = []
    private let logger: Logger

    public init(session: Session, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// Queues `flights` for the phone and sends them at once if the session allows; returns the
    /// transfers made (in one outbox transaction, however many flights).
    @discardableResult
    public func finish(_ flights: [Flight]) throws -> [UserInfoTransfer] {
        pendingFlightQueue.append(contentsOf: flights)
        return try sendRunningData()
    }

    public func sendRunningData() throws -> [UserInfoTransfer] {
        guard session.activationState == .activated, !pendingFlightQueue.isEmpty else { return [] }
        let transfers = try session.transferUserInfo(batch: pendingFlightQueue.map(\.userInfo))
        logger.debug("watch.flights-queued", ["count": transfers.count, "lastSeq": transfers.last?.seq ?? 0])
        pendingFlightQueue.removeAll()
        return transfers
    }
}
