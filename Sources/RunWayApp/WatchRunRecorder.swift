import WatchConnectivity
import Posix
import PropertyLists
import RunWayDomain

/// The watch app's side of a finished run (RunWay's `sendRunningData`): finished flights become queued
/// userInfo transfers, which then belong to the session's durable outbox.
///
/// The seeds' app held finished flights in memory (`pendingFlightQueue`) until the session activated.
/// A recording that reported success while its flights sat only in memory would be lost with the
/// process, so here a recording needs an activated session: without one it fails (7004) and nothing is
/// recorded — never "recorded" in memory alone.
public final class WatchRunRecorder {
    public let session: WCSession
    private let logger: Logger

    public init(session: WCSession = .default, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// Queues `flights` for the phone in one durable write (the session's queue).
    @discardableResult
    public func finish(_ flights: [Flight]) throws -> [WCSessionUserInfoTransfer] {
        try requireActivated()
        guard !flights.isEmpty else { return [] }
        let transfers = try session.transferUserInfo(typed: flights.map(\.userInfo))
        logger.debug("watch.flights-queued", ["count": transfers.count, "lastSeq": transfers.last?.transferIdentifier ?? 0])
        return transfers
    }

    /// What one recording queued: the flights' ids in order, and the transfers' id range.
    public struct Recording: Sendable {
        public var ids: [String]
        public var firstTransfer: Int64
        public var lastTransfer: Int64
    }

    /// The watch app's "record N runs": `count` finished runs, the newest ending at `now` (the watch's
    /// device time), generated a slice at a time and queued in one outbox transaction — durable all
    /// together before this returns, or not at all.
    ///
    /// A long series can be recorded in chunks: `seriesStart` and `seriesTotal` place these `count` runs
    /// within a series of `seriesTotal` (spaced as one series, all ending by `now`); each chunk is its own
    /// transaction.
    public func record(
        count: Int, distanceKm: Double?, now: Double, seriesStart: Int = 0, seriesTotal: Int? = nil,
        using generator: inout FlightGenerator
    ) throws -> Recording {
        try requireActivated()
        let total = seriesTotal ?? count
        var ids: [String] = []
        ids.reserveCapacity(count)
        var start = seriesStart
        let stop = seriesStart + count
        var generated = generator
        let (first, last) = try session.transferUserInfo { () -> [UserInfo]? in
            guard start < stop else { return nil }
            let end = min(stop, start + 512)
            let flights = generated.flights(start..<end, of: total, distanceKm: distanceKm, now: now)
            ids.append(contentsOf: flights.map(\.id))
            start = end
            return flights.map(\.userInfo)
        }
        generator = generated
        logger.debug("watch.flights-queued", ["count": count, "firstSeq": first, "lastSeq": last])
        return Recording(ids: ids, firstTransfer: first, lastTransfer: last)
    }

    private func requireActivated() throws(WCError) {
        guard session.activationState == .activated else {
            throw WCError(
                .sessionNotActivated,
                description: "the watch's session is not activated, so nothing was recorded (a run held only in memory would be lost with the app)")
        }
    }
}
