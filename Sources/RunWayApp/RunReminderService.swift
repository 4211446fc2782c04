import JSONText
import Posix

/// RunWay 1.3.2's inactivity reminders (`RunReminderService`): four one-shot notifications 7, 14, 21
/// and 28 days after the last run, computed in one place on the device clock.
///
/// Why four one-shots and not a repeating trigger (seed 001): a repeating interval trigger counts its
/// first interval from the moment it is scheduled, so every app open would move the basis from the
/// last run to "now". The rule, `plan(lastRunAt:now:rule:)`, is a pure function; `reschedule(now:)`
/// carries it out against the notification centre in one transaction.
public final class RunReminderService {
    public enum Rule: String, Sendable, CaseIterable {
        /// RunWay 1.3.2: the ladder.
        case current
        /// RunWay up to 1.3.1, reproduced on purpose: one reminder at last run + 7 days, and nothing at
        /// all if that is already past (`guard fireDate > .now else { return }`).
        case legacy
    }

    public static let stages = [7, 14, 21, 28]
    public static let day: Double = 86_400
    public static let legacyIdentifier = "runway.reminder.inactivity"
    public static func identifier(elapsedDays: Int) -> String { "runway.reminder.\(elapsedDays)d" }
    /// Every id the app has ever used for these reminders, the old single one included: removing all of
    /// them first is what keeps the 7-day reminder from arriving twice after an upgrade (#35).
    public static let allIdentifiers = stages.map(identifier(elapsedDays:)) + [legacyIdentifier]

    /// One reminder to add.
    public struct Planned: Equatable, Sendable {
        public var id: String
        public var fireAt: Double
        public var elapsedDays: Int
    }

    /// What a reschedule does: remove these ids, then add these requests.
    public struct Plan: Equatable, Sendable {
        public var remove: [String]
        public var add: [Planned]
    }

    /// The rule. `lastRunAt` is the latest stored run's start (nil: no runs).
    ///
    /// Current: remove all five ids; add each stage whose fire date `L + d × 86,400 s` lies strictly
    /// after `now` (a past stage is skipped — `continue`, not `return`, #33); if none did, add the first
    /// stage at `now + 7 d` (#34: the only place `now` is the basis, because the app was opened).
    /// Legacy: remove the old id; add it at `L + 7 d` if that is after `now`, else nothing (#30).
    /// Days are exact 86,400-second intervals (the seed's `addingTimeInterval`), not calendar days: across
    /// a daylight-saving change the local hour of a reminder moves by one.
    public static func plan(lastRunAt: Double?, now: Double, rule: Rule) -> Plan {
        switch rule {
        case .legacy:
            guard let last = lastRunAt else { return Plan(remove: [legacyIdentifier], add: []) }
            let fireAt = last + 7 * day
            guard fireAt > now else { return Plan(remove: [legacyIdentifier], add: []) }
            return Plan(remove: [legacyIdentifier], add: [Planned(id: legacyIdentifier, fireAt: fireAt, elapsedDays: 7)])
        case .current:
            guard let last = lastRunAt else { return Plan(remove: allIdentifiers, add: []) }
            var add: [Planned] = []
            for elapsedDays in stages {
                let fireAt = last + Double(elapsedDays) * day
                guard fireAt > now else { continue }  // continue, not return
                add.append(Planned(id: identifier(elapsedDays: elapsedDays), fireAt: fireAt, elapsedDays: elapsedDays))
            }
            if add.isEmpty, let first = stages.first {
                add.append(Planned(id: identifier(elapsedDays: first), fireAt: now + Double(first) * day, elapsedDays: first))
            }
            return Plan(remove: allIdentifiers, add: add)
        }
    }

    public let rule: Rule
    public let center: UserNotificationCenter
    /// The language the bodies are written in when scheduled (iOS stores the content as it was then).
    public var language = ReminderTexts.defaultLanguage
    private let logger: Logger
    /// The basis: the latest-started stored run's `startedAt`.
    private let lastRunAt: () throws -> Double?
    public private(set) var rescheduleCount = 0

    public init(rule: Rule, center: UserNotificationCenter, logger: Logger, lastRunAt: @escaping () throws -> Double?) {
        self.rule = rule
        self.center = center
        self.logger = logger
        self.lastRunAt = lastRunAt
    }

    /// Replaces the reminders by the rule's plan at device time `now`, in one transaction; returns the
    /// plan carried out. `reason` is logged (`saved`, `opened`, `deleted`, `command`).
    @discardableResult
    public func reschedule(now: Double, reason: String) throws -> Plan {
        let last = try lastRunAt()
        let plan = Self.plan(lastRunAt: last, now: now, rule: rule)
        let requests = plan.add.map { item in
            UserNotificationCenter.Request(
                id: item.id, fireAt: item.fireAt, title: ReminderTexts.title(language: language),
                body: ReminderTexts.body(elapsedDays: item.elapsedDays, language: language), language: language)
        }
        // Already exactly so (a UI opened again, the same latest run): no write, no fsync.
        let current = try center.pending().filter { Self.isReminder($0.id) }.map { request -> UserNotificationCenter.Request in
            var copy = request
            copy.addedAt = 0
            return copy
        }
        if current.sorted(by: { $0.id < $1.id }) != requests.sorted(by: { $0.id < $1.id }) {
            try center.atomically {
                try center.removePending(plan.remove)
                for request in requests { try center.add(request, now: now) }
            }
        }
        rescheduleCount += 1
        logger.info(
            "reminders.rescheduled",
            [
                "rule": rule.rawValue, "reason": reason, "lastRunAt": last.map { Timestamp.iso8601($0) } ?? "none",
                "pending": plan.add.map(\.id).joined(separator: ","),
            ])
        return plan
    }

    /// Whether `id` is one of the reminders' (the notification centre holds others too).
    public static func isReminder(_ id: String) -> Bool { allIdentifiers.contains(id) }
}
