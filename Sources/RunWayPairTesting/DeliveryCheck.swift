/// The promise over an app's own ids, for an app that is not RunWay's: every id sent was received, in
/// the order sent, at least once — or exactly once, for an app that drops what it has already saved.
/// Pure: the ids come from wherever the app keeps them (a file in its container, its own store).
public struct DeliveryReport: Sendable, Equatable, CustomStringConvertible {
    public var sent = 0
    public var received = 0
    /// Sent and never received.
    public var lost: [String] = []
    /// Received more than once (a violation only when exactly once was asked for).
    public var duplicated: [String] = []
    /// Received but never sent (mixed up, or invented).
    public var unexpected: [String] = []
    /// The first pair whose first arrivals are out of the order they were sent in.
    public var outOfOrder: (earlier: String, later: String)?
    public var exactlyOnce = false

    public var isClean: Bool { lost.isEmpty && unexpected.isEmpty && outOfOrder == nil && (!exactlyOnce || duplicated.isEmpty) }

    /// `200 sent, 200 received, 0 lost, 0 duplicated, order kept`
    public var description: String {
        var text = "\(sent) sent, \(received) received, \(lost.count) lost, \(duplicated.count) duplicated"
        text += duplicated.isEmpty || exactlyOnce ? "" : " (allowed: at least once)"
        text += outOfOrder.map { ", OUT OF ORDER: \($0.later) arrived before \($0.earlier)" } ?? ", order kept"
        if !unexpected.isEmpty { text += ", \(unexpected.count) never sent" }
        if !lost.isEmpty { text += "; lost: " + lost.prefix(10).joined(separator: " ") + (lost.count > 10 ? " …" : "") }
        return text
    }

    public static func == (lhs: DeliveryReport, rhs: DeliveryReport) -> Bool {
        lhs.sent == rhs.sent && lhs.received == rhs.received && lhs.lost == rhs.lost && lhs.duplicated == rhs.duplicated
            && lhs.unexpected == rhs.unexpected && lhs.outOfOrder?.earlier == rhs.outOfOrder?.earlier
            && lhs.outOfOrder?.later == rhs.outOfOrder?.later && lhs.exactlyOnce == rhs.exactlyOnce
    }

    /// Checks `received` (in arrival order, repeats included) against `sent` (in sending order).
    public static func check(sent: [String], received: [String], exactlyOnce: Bool = false) -> DeliveryReport {
        var report = DeliveryReport(sent: sent.count, received: received.count, exactlyOnce: exactlyOnce)
        var position: [String: Int] = [:]
        for (index, id) in sent.enumerated() where position[id] == nil { position[id] = index }
        var seen: Set<String> = []
        var duplicated: Set<String> = []
        var lastPosition = -1
        var lastID = ""
        for id in received {
            guard let at = position[id] else {
                report.unexpected.append(id)
                continue
            }
            if seen.contains(id) {
                if duplicated.insert(id).inserted { report.duplicated.append(id) }
                continue
            }
            seen.insert(id)
            if at < lastPosition, report.outOfOrder == nil { report.outOfOrder = (earlier: id, later: lastID) }
            if at > lastPosition {
                lastPosition = at
                lastID = id
            }
        }
        report.lost = sent.filter { !seen.contains($0) }
        return report
    }
}
