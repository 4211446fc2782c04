import Storage

/// One call that asked the watch to record flights, as the caller saw it end.
///
/// A call that fails *after* the watch may have committed (the watch was killed while answering) is
/// neither a success nor a failure: like Jepsen's `:info` operations it is indeterminate, and the
/// checker resolves it from what the phone stored (see `InvariantChecker`). A call refused before it
/// reached the watch (no one listening) recorded nothing and is not part of the history at all.
package enum Recording: Sendable, Equatable {
    /// The call returned success with these ids, in recording order.
    case succeeded([String])
    /// The call ended without an answer: its `count` flights were recorded all together (one outbox
    /// transaction) or not at all, and nobody knows their ids.
    case indeterminate(count: Int)
}

/// The promise, checked: every flight whose recording returned success is stored exactly once on the
/// phone, flights from the watch are stored in the order they were recorded, the outboxes end empty,
/// and every store passes `PRAGMA integrity_check`. One piece of code for the tests and the chaos script.
package struct InvariantReport: Sendable {
    /// Flights known to be recorded: those of successful calls, plus those of indeterminate calls that
    /// turned out to have committed.
    package var recorded = 0
    package var stored = 0
    package var lost: [String] = []
    package var duplicated: [String] = []
    /// Stored but not explained by the history (would mean a flight was invented, mixed up, split from
    /// its recording, or moved out of place).
    package var unexpected: [String] = []
    /// Flights the user deleted that are stored again (a resend must not bring one back).
    package var resurrected: [String] = []
    package var orderKept = true
    /// The first pair found stored out of recording order.
    package var orderViolation: (earlier: String, later: String)?
    package var outstandingTransfers = 0
    package var integrityProblems: [String] = []
    /// Calls whose outcome was unknown, and how many of them were found stored, whole and in place.
    package var indeterminateCalls = 0
    package var indeterminateCommitted = 0
    /// The flights of those committed calls (counted in `recorded` and `stored`).
    package var indeterminateFlights = 0
    /// The files sent and kept (`FileReport`): each sent once arrives once, byte-identical.
    package var files = FileReport()
    /// Each finished run saved to Health once (`HealthReport`), when the history named finished runs.
    package var health = HealthReport()

    package var isClean: Bool {
        lost.isEmpty && duplicated.isEmpty && unexpected.isEmpty && resurrected.isEmpty && orderKept && outstandingTransfers == 0
            && integrityProblems.isEmpty && files.isClean && health.isClean
    }

    /// `500 recorded, 500 stored, 0 lost, 0 duplicated, order kept`
    package var summary: String {
        var text = "\(recorded) recorded, \(stored) stored, \(lost.count) lost, \(duplicated.count) duplicated, "
        text += orderKept ? "order kept" : "ORDER BROKEN"
        if outstandingTransfers != 0 { text += ", \(outstandingTransfers) transfers still outstanding" }
        if !unexpected.isEmpty { text += ", \(unexpected.count) unexpected" }
        if !resurrected.isEmpty { text += ", \(resurrected.count) deleted flights back" }
        if !integrityProblems.isEmpty { text += ", store damaged" }
        if files.sent > 0 || files.received > 0 {
            text += "; \(files.sent) file(s) sent, \(files.received) kept" + (files.isClean ? "" : ", FILES WRONG")
        }
        return text
    }

    /// What became of the calls without an answer, or nil if there were none.
    package var indeterminateSummary: String? {
        guard indeterminateCalls > 0 else { return nil }
        return "\(indeterminateCalls) recording call(s) got no answer (the watch died mid-call): "
            + "\(indeterminateCommitted) had committed (\(indeterminateFlights) flights, stored whole and in place), "
            + "\(indeterminateCalls - indeterminateCommitted) had not"
    }

    /// Every violation, one per line, naming the ids.
    package var violations: [String] {
        var lines: [String] = []
        if !lost.isEmpty { lines.append("lost (\(lost.count)): " + lost.joined(separator: " ")) }
        if !duplicated.isEmpty { lines.append("duplicated (\(duplicated.count)): " + duplicated.joined(separator: " ")) }
        if !unexpected.isEmpty { lines.append("unexpected (\(unexpected.count)): " + unexpected.joined(separator: " ")) }
        if !resurrected.isEmpty { lines.append("deleted but stored again (\(resurrected.count)): " + resurrected.joined(separator: " ")) }
        if let (earlier, later) = orderViolation { lines.append("out of order: \(later) was stored before \(earlier), though recorded after it") }
        if outstandingTransfers != 0 { lines.append("outboxes not empty: \(outstandingTransfers) transfers outstanding") }
        lines.append(contentsOf: integrityProblems.map { "integrity: " + $0 })
        lines.append(contentsOf: files.violations)
        lines.append(contentsOf: health.violations)
        return lines
    }
}

package enum InvariantChecker {
    /// - Parameters:
    ///   - recorded: the ids whose recording succeeded, in the order they were recorded (one watch).
    ///   - stored: the phone's logbook ids in arrival order.
    ///   - outstandingTransfers: what the outboxes still hold.
    ///   - storePaths: SQLite files to run `PRAGMA integrity_check` on.
    package static func check(
        recorded: [String], stored: [String], outstandingTransfers: Int = 0,
        storePaths: [String] = [], deleted: Set<String> = []
    ) -> InvariantReport {
        check(
            history: [.succeeded(recorded)], stored: stored, outstandingTransfers: outstandingTransfers,
            storePaths: storePaths, deleted: deleted)
    }

    /// The same, against a history of recording calls in the order they were made (one at a time).
    ///
    /// Ids of successful calls must each be stored exactly once, in recording order. Stored ids that no
    /// successful call returned are accepted only as the flights of indeterminate calls, and only as
    /// the whole of such calls, at the place in arrival order where those calls stand in the history
    /// (a recording is one transaction, and transfers arrive in order). Anything else is `unexpected`.
    /// A flight in `deleted` (the user deleted it once it was stored) must stay gone: it is not lost,
    /// and stored again it is `resurrected`.
    ///
    /// `otherWatches`: the flights recorded on the phone's other watches (issue 25: several watches), each
    /// watch's in its own recording order. Each must be stored exactly once, in its watch's order; the
    /// watches' flights interleave in any way (each watch has its own queue), and are then left out of the
    /// checks against `history`.
    package static func check(
        history: [Recording], stored: [String], outstandingTransfers: Int = 0,
        storePaths: [String] = [], deleted: Set<String> = [], otherWatches: [[String]] = []
    ) -> InvariantReport {
        var report = InvariantReport()
        report.stored = stored.count
        report.outstandingTransfers = outstandingTransfers
        var stored = stored
        for recorded in otherWatches where !recorded.isEmpty {
            let own = Set(recorded)
            let arrived = stored.filter { own.contains($0) }
            var counts: [String: Int] = [:]
            for id in arrived { counts[id, default: 0] += 1 }
            report.lost += recorded.filter { counts[$0] == nil && !deleted.contains($0) }
            report.duplicated += counts.filter { $0.value > 1 }.map(\.key).sorted()
            let position = Dictionary(recorded.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            let order = arrived.compactMap { position[$0] }
            if report.orderKept, let broken = zip(order, order.dropFirst()).first(where: { $0.1 < $0.0 }) {
                report.orderKept = false
                report.orderViolation = (recorded[broken.1], recorded[broken.0])
            }
            report.recorded += recorded.count
            stored.removeAll { own.contains($0) }
        }

        // Where each id was recorded: its call and its place among all recorded ids.
        var origin: [String: (call: Int, position: Int)] = [:]
        var recordedIDs: [String] = []
        for (call, recording) in history.enumerated() {
            switch recording {
            case .succeeded(let ids):
                for id in ids where origin[id] == nil {
                    origin[id] = (call, recordedIDs.count)
                    recordedIDs.append(id)
                }
            case .indeterminate:
                report.indeterminateCalls += 1
            }
        }

        var seen: [String: Int] = [:]
        var arrivals: [String] = []
        for id in stored {
            seen[id, default: 0] += 1
            if seen[id] == 1 { arrivals.append(id) }
        }
        report.duplicated += seen.filter { $0.value > 1 }.map(\.key).sorted()
        report.lost += recordedIDs.filter { seen[$0] == nil && !deleted.contains($0) }
        report.resurrected = recordedIDs.filter { seen[$0] != nil && deleted.contains($0) }

        // Arrival order must follow recording order.
        var previous: (id: String, position: Int)?
        for id in arrivals {
            guard let position = origin[id]?.position else { continue }
            if let previous, position < previous.position, report.orderKept {
                report.orderKept = false
                report.orderViolation = (id, previous.id)
                break
            }
            previous = (id, position)
        }

        resolveIndeterminate(history: history, arrivals: arrivals, origin: origin, into: &report)
        report.recorded += recordedIDs.count + report.indeterminateFlights
        report.integrityProblems = integrityProblems(storePaths)
        return report
    }

    // MARK: - Indeterminate calls

    /// Explains each run of unknown ids (between two known ones, in arrival order) as the whole of
    /// some indeterminate calls made between the calls of those two known ids.
    private static func resolveIndeterminate(
        history: [Recording], arrivals: [String],
        origin: [String: (call: Int, position: Int)],
        into report: inout InvariantReport
    ) {
        var used = Set<Int>()
        var run: [String] = []
        var previousCall = -1
        func closeRun(before nextCall: Int) {
            guard !run.isEmpty else { return }
            var candidates: [(call: Int, count: Int)] = []
            if previousCall + 1 < nextCall {
                for call in (previousCall + 1)..<nextCall where !used.contains(call) {
                    if case .indeterminate(let count) = history[call], count > 0 { candidates.append((call, count)) }
                }
            }
            if let chosen = subset(of: candidates, summingTo: run.count) {
                used.formUnion(chosen)
                report.indeterminateCommitted += chosen.count
                report.indeterminateFlights += run.count
            } else {
                report.unexpected += run
            }
            run.removeAll()
        }
        for id in arrivals {
            if let known = origin[id] {
                closeRun(before: known.call)
                previousCall = known.call
            } else {
                run.append(id)
            }
        }
        closeRun(before: history.count)
    }

    /// Calls whose counts add up to exactly `target` (a subset-sum over a handful of calls), or nil.
    static func subset(of candidates: [(call: Int, count: Int)], summingTo target: Int) -> [Int]? {
        var reachable: [Int: [Int]] = [0: []]
        for candidate in candidates {
            for (sum, calls) in reachable where sum + candidate.count <= target && reachable[sum + candidate.count] == nil {
                reachable[sum + candidate.count] = calls + [candidate.call]
            }
        }
        return reachable[target]
    }

    // MARK: - Stores

    static func integrityProblems(_ storePaths: [String]) -> [String] {
        var problems: [String] = []
        for path in storePaths {
            do {
                let database = try Database(path: path)
                defer { database.close() }
                if let found = try database.check(thorough: true) {
                    problems.append("\(path): \(found)")
                }
            } catch {
                problems.append("\(path): \(error)")
            }
        }
        return problems
    }
}
