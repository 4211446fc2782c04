import WatchConnectivity
import Posix
import Storage
import RunWayDomain

/// Where the phone app saves a flight that arrives from the watch.
public enum SavePath: String, Sendable, CaseIterable {
    /// RunWay 1.3's fix: saved the moment it arrives, UI or not.
    case immediate
    /// RunWay 1.3 before the fix, reproduced on purpose: the flight only joins an in-memory queue that
    /// the home screen drains when it appears. The transfer counts as delivered; killed before any UI
    /// attaches, the flight is gone.
    case uiDrain = "ui-drain"
}

/// The inactivity reminders' hook: called once for each flight saved, never for a duplicate or a run
/// under 0.1 km.
public protocol InactivityReminderScheduling: AnyObject {
    func reschedule(afterSaving flight: Flight, latest: Flight)
}

/// The phone app's model of runs (RunWay's `RunViewModel`): owns saving. The connectivity service hands
/// it flights; it never touches the session.
public final class RunViewModel {
    public enum SaveResult: Equatable, Sendable {
        case saved
        case duplicate
        /// Under 0.1 km: not a run worth a logbook entry.
        case tooShort
        /// No store yet: held in `pendingWatchDataQueue` until there is one.
        case queued
    }

    public static let minimumDistanceKm = 0.1

    public let savePath: SavePath
    public private(set) var store: FlightStore?
    public private(set) var pendingWatchDataQueue: [(flight: Flight, origin: FlightStore.Origin)] = []
    public weak var reminders: InactivityReminderScheduling?
    /// The device clock: `saved_at` is a date the user sees.
    public var now: () -> Double = wallClockSeconds
    /// Told about flights once they are durable, with their place in arrival order (the UI clients'
    /// feed).
    public var onFlightsSaved: (([StoredFlight]) -> Void)?
    /// Told when a flight joins `pendingWatchDataQueue`: whoever can drain it should plan to.
    public var onFlightHeld: (() -> Void)?
    private let logger: Logger
    /// Saved inside the open receive transaction, not yet committed.
    private var uncommitted: [StoredFlight] = []
    private var latestSaved: Flight?

    public init(savePath: SavePath, logger: Logger) {
        self.savePath = savePath
        self.logger = logger
    }

    /// Gives the model its store (the database context). In the fixed app this happens at start-up,
    /// before the session activates; flights that arrived without a store are saved now.
    public func attach(store: FlightStore) {
        self.store = store
        latestSaved = (try? store.latest())?.flight
        if !pendingWatchDataQueue.isEmpty && savePath == .immediate { drainPendingQueue(reason: "store attached") }
    }

    // MARK: - Receiving from the watch

    /// The connectivity service's entry point, called inside the session's receive transaction.
    public func receiveFromWatch(_ flight: Flight, origin: FlightStore.Origin) -> WCReceiveOutcome {
        switch savePath {
        case .uiDrain:
            // The 1.3 bug: delivered, appended to memory, never saved until a home screen appears.
            pendingWatchDataQueue.append((flight, origin))
            logger.info("app.flight-queued-for-ui", ["id": flight.id, "pending": pendingWatchDataQueue.count])
            onFlightHeld?()
            return .accepted
        case .immediate:
            do {
                switch try saveIncomingWatchFlight(flight, origin: origin) {
                case .queued: return .notNow
                case .saved, .duplicate, .tooShort: return .accepted
                }
            } catch {
                // The store could not take it: have the whole receive transaction rolled back — nothing
                // half-written stays, nothing is acknowledged, and the watch keeps the transfer and
                // resends it. Nothing is held here: a copy saved later, outside the receive path, would
                // jump ahead of the flights rolled back with it and bypass the receive cursor (a flight
                // the user deleted would come back). The resend is the retry.
                logger.error("app.save-failed", ["id": flight.id, "error": "\(error)", "action": "rolled back; the watch resends it"])
                return (error as? StorageError)?.kind == .full ? .insufficientSpace : .failed
            }
        }
    }

    /// Fix 1 of RunWay 1.3: save on receipt.
    /// 1. no store yet: queue it (the fallback) and return (the daemon attaches its store before the
    ///    session activates, so this is for a model used without one);
    /// 2. ignore runs under 0.1 km;
    /// 3. skip a flight whose id is stored;
    /// 4. insert — committed with the receive transaction, before the acknowledgement;
    /// 5. the reminders are rescheduled once that commit succeeds (`didCommit`).
    public func saveIncomingWatchFlight(_ flight: Flight, origin: FlightStore.Origin) throws -> SaveResult {
        guard let store else {
            enqueuePending(flight, origin)
            return .queued
        }
        guard flight.distanceKm >= Self.minimumDistanceKm else {
            logger.info("app.flight-ignored", ["id": flight.id, "distanceKm": flight.distanceKm, "reason": "under 0.1 km"])
            return .tooShort
        }
        guard let arrival = try store.insert(flight, origin: origin, now: now()) else { return .duplicate }
        uncommitted.append(StoredFlight(flight: flight, arrival: arrival))
        return .saved
    }

    private func enqueuePending(_ flight: Flight, _ origin: FlightStore.Origin) {
        if !pendingWatchDataQueue.contains(where: { $0.flight.id == flight.id }) {
            pendingWatchDataQueue.append((flight, origin))
        }
        onFlightHeld?()
    }

    /// The transaction holding the flights saved since the last commit is durable.
    public func didCommit() {
        guard !uncommitted.isEmpty else { return }
        let saved = uncommitted
        uncommitted.removeAll()
        for stored in saved {
            let flight = stored.flight
            if latestSaved == nil || flight.startedAt >= latestSaved!.startedAt { latestSaved = flight }
            reminders?.reschedule(afterSaving: flight, latest: latestSaved!)
        }
        onFlightsSaved?(saved)
    }

    /// The transaction was rolled back: nothing in it was saved.
    public func didRollBack() {
        uncommitted.removeAll()
    }

    // MARK: - The home screen's drain (the 1.3 path, kept as a safety net)

    /// Writes `pendingWatchDataQueue` to the store in one transaction, as the home screen's
    /// `.onAppear` did. Returns how many were saved; on failure the queue is kept for the next try.
    @discardableResult
    public func drainPendingQueue(reason: String) -> Int {
        guard let store, !pendingWatchDataQueue.isEmpty else { return 0 }
        let batch = pendingWatchDataQueue
        var results: [SaveResult] = []
        do {
            try store.database.transaction {
                results = try batch.map { try saveIncomingWatchFlight($0.flight, origin: $0.origin) }
            }
        } catch {
            didRollBack()
            logger.error("app.drain-failed", ["pending": batch.count, "error": "\(error)"])
            return 0
        }
        pendingWatchDataQueue.removeFirst(batch.count)
        let saved = results.filter { $0 == .saved }.count
        logger.info("app.pending-drained", ["reason": reason, "flights": batch.count, "saved": saved])
        didCommit()
        return saved
    }
}
