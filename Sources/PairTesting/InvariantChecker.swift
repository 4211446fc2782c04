import Storage

/// The promise, checked: every flight whose recording returned success is stored exactly once on the
/// phone, flights from the watch are stored in the order they were recorded, the outboxes end empty,
/// and every store passes `PRAGMA integrity_check`. One piece of code for the tests and the chaos script.
public struct InvariantReport: Sendable {
    public var recorded = 0
    public var stored = 0
    public var lost: [String] = []
    public var duplicated: [String] = []
    /// Stored but never recorded (would mean a flight was invented or mixed up).
    public var unexpected: [String] = []
    public var orderKept = true
    /// The first pair found stored out of recording order.
    public var orderViolation: (earlier: String, later: String)?
    public var outstandingTransfers = 0
    public var integrityProblems: [String] = []

    public var isClean: Bool {
        lost.isEmpty && duplicated.isEmpty && unexpected.isEmpty && orderKept && outstandingTransfers == 0
            && integrityProblems.isEmpty
    }

    /// `500 recorded, 500 stored, 0 lost, 0 duplicated, order kept`
    public var summary: String {
        var text = "\(recorded) recorded, \(stored) stored, \(lost.count) lost, \(duplicated.count) duplicated, "
        text += orderKept ? "order kept" : "ORDER BROKEN"
        if outstandingTransfers != 0 { text += ", \(outstandingTransfers) transfers still outstanding" }
        if !unexpected.isEmpty { text += ", \(unexpected.count) unexpected" }
        if !integrityProblems.isEmpty { text += ", store damaged" }
        return text
    }

    /// Every violation, one per line, naming the ids.
    public var violations: [String] {
        var lines: [String] = []
        if !lost.isEmpty { lines.append("lost (\(lost.count)): " + lost.joined(separator: " ")) }
        if !duplicated.isEmpty { lines.append("duplicated (\(duplicated.count)): " + duplicated.joined(separator: " ")) }
        if !unexpected.isEmpty { lines.append("unexpected (\(unexpected.count)): " + unexpected.joined(separator: " ")) }
        if let (earlier, later) = orderViolation { lines.append("out of order: \(later) was stored before \(earlier), though recorded after it") }
        if outstandingTransfers != 0 { lines.append("outboxes not empty: \(outstandingTransfers) transfers outstanding") }
        lines.append(contentsOf: integrityProblems.map { "integrity: " + $0 })
        return lines
    }
}

public enum InvariantChecker {
    /// - Parameters:
    ///   - recorded: the ids whose recording succeeded, in the order they were recorded (one watch).
    ///   - stored: the phone's logbook ids in arrival order.
    ///   - outstandingTransfers: what the outboxes still hold.
    ///   - storePaths: SQLite files to run `PRAGMA integrity_check` on.
    public static func check(recorded: [String], stored: [String], outstandingTransfers: Int = 0,
                             storePaths: [String] = []) -> InvariantReport {
        var report = InvariantReport()
        report.recorded = recorded.count
        report.stored = stored.count
        report.outstandingTransfers = outstandingTransfers

        var position: [String: Int] = [:]
        for (index, id) in recorded.enumerated() where position[id] == nil { position[id] = index }

        var seen: [String: Int] = [:]
        for id in stored { seen[id, default: 0] += 1 }
        report.duplicated = seen.filter { $0.value > 1 }.map(\.key).sorted()
        report.unexpected = seen.keys.filter { position[$0] == nil }.sorted()
        report.lost = recorded.filter { seen[$0] == nil }

        // Arrival order must follow recording order.
        var previous: (id: String, index: Int)?
        var counted = Set<String>()
        for id in stored {
            guard let index = position[id], counted.insert(id).inserted else { continue }
            if let previous, index < previous.index {
                report.orderKept = false
                report.orderViolation = (id, previous.id)
                break
            }
            previous = (id, index)
        }

        for path in storePaths {
            do {
                let database = try Database(path: path)
                defer { database.close() }
                if let problems = try database.check(thorough: true) {
                    report.integrityProblems.append("\(path): \(problems)")
                }
            } catch {
                report.integrityProblems.append("\(path): \(error)")
            }
        }
        return report
    }
}
