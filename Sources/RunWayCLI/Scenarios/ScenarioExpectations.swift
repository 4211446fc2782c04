import JSONText
import PairInvariants
import Posix

/// A scenario's expectations checked, and its time: signals, pauses, polls.
extension ScenarioRunner {
    /// The checker's figures now, against what the expectation asks.
    func expect(_ expectation: ScenarioExpectation, _ fields: inout [String: JSONValue]) throws -> (Bool, String) {
        let outstanding = try pair.outstanding()
        let transfers = try pair.transfersQueued()
        let flights = InvariantChecker.check(
            history: history, stored: try pair.storedFlightIDs(), outstandingTransfers: outstanding, storePaths: pair.storePaths)
        var reports = [flights]
        var receivedCount = 0
        // The userInfo sent to an app of your own are not counted: only RunWay's apps keep them where they can be read.
        let readable: [ScenarioStep.Device] = (scenario.phoneApp == nil ? [.watch] : []) + (scenario.watchApp == nil ? [.phone] : [])
        for from in readable where !(sent[from] ?? []).isEmpty {
            let received = try pair.receivedIDs(on: from == .watch ? .phone : .watch)
            receivedCount += received.count
            reports.append(InvariantChecker.check(recorded: sent[from] ?? [], stored: received))
        }
        lastReport = flights
        let sentCount = readable.reduce(0) { $0 + (sent[$1] ?? []).count }
        let figures: [(String, Int, ScenarioBound?, Int)] = [
            ("stored", flights.stored, expectation.stored, flights.recorded),
            ("received", receivedCount, expectation.received, sentCount),
            ("lost", reports.reduce(0) { $0 + $1.lost.count }, expectation.lost, 0),
            ("duplicated", reports.reduce(0) { $0 + $1.duplicated.count }, expectation.duplicated, 0),
            ("outstanding", outstanding, expectation.outstanding, 0),
            ("transfers", transfers, expectation.transfers, 0),
        ]
        var misses: [String] = []
        for (name, value, bound, all) in figures {
            fields[name] = .integer(Int64(value))
            guard let bound else { continue }
            let holds: Bool
            switch bound {
            case .all: holds = value == all
            case let .range(range): holds = range.contains(value)
            }
            if !holds { misses.append("\(name) \(value), expected \(bound == .all ? "all (\(all))" : bound.text())") }
        }
        let clean = reports.allSatisfy(\.isClean)
        fields["clean"] = .bool(clean)
        fields["recorded"] = .integer(Int64(flights.recorded))
        fields["sent"] = .integer(Int64(sentCount))
        let violations = reports.flatMap(\.violations)
        fields["violations"] = .array(violations.map(JSONValue.string))
        if let wanted = expectation.clean, wanted != clean {
            misses.append(clean ? "clean, expected not" : "not clean: " + (violations.first.map { OneLine.escape($0, limit: 200) } ?? "?"))
        }
        // Held over nothing, every figure holds: nothing recorded is nothing lost. That passes only when the
        // file says nothing is what it means (`"transfers": 0`, or a range from 0).
        if transfers == 0, expectation.transfers == nil {
            misses.append(
                "held over nothing: no transfer was queued on either device before this step (did the apps run?); a step that means none says \"transfers\": 0")
        }
        let summary = flights.summary + (sentCount > 0 ? "; \(receivedCount) of \(sentCount) userInfo received" : "") + "; \(transfers) transfers queued"
        guard misses.isEmpty else { return (false, "FAILED: " + misses.joined(separator: "; ") + " (\(summary))") }
        return (true, "held: \(summary)")
    }

    // MARK: - Time

    func checkSignals() throws(Interrupted) {
        if let signal = signals.drain().first { throw Interrupted(signal: signal) }
    }

    /// Waits `milliseconds`, or less if a signal comes (then throws).
    func pause(milliseconds: Int) throws(Interrupted) {
        let deadline = monotonicNow() + Double(milliseconds) / 1000
        while true {
            try checkSignals()
            let left = deadline - monotonicNow()
            if left <= 0 { return }
            _ = try? signals.descriptor.waitUntil(.readable, timeoutMilliseconds: Int32(min(left * 1000, 1000).rounded(.up)))
        }
    }

    /// Checks `condition` every 20 ms until it holds; a step failure after `timeout` seconds.
    func poll(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        let deadline = monotonicNow() + timeout
        while !condition() {
            guard monotonicNow() < deadline else {
                throw StepFailure(message: "timed out after \(TimeText.formatDuration(timeout)) waiting until \(what)")
            }
            try pause(milliseconds: 20)
        }
    }
}
