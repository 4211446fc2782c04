import Foundation
import JSONText
import Posix
import UserNotifications
import RunWayDomain

/// RunWay 1.3.2's inactivity reminders (`RunReminderService`): four one-shot notifications 7, 14, 21
/// and 28 days after the last run, computed in one place on the device clock.
///
/// Why four one-shots and not a repeating trigger (seed 001): a repeating interval trigger counts its
/// first interval from the moment it is scheduled, so every app open would move the basis from the
/// last run to "now". The rule, `plan(lastRunAt:now:rule:)`, is a pure function; `reschedule(now:)`
/// carries it out against the notification centre in one transaction.
package final class RunReminderService {
    package enum Rule: String, Sendable, CaseIterable {
        /// RunWay 1.3.2: the ladder.
        case current
        /// RunWay up to 1.3.1, reproduced on purpose: one reminder at last run + 7 days, and nothing at
        /// all if that is already past (`guard fireDate > .now else { return }`).
        case legacy
    }

    package static let stages = [7, 14, 21, 28]
    package static let day: Double = 86_400
    package static let legacyIdentifier = "runway.reminder.inactivity"
    package static func identifier(elapsedDays: Int) -> String { "runway.reminder.\(elapsedDays)d" }
    /// Every id the app has ever used for these reminders, the old single one included: removing all of
    /// them first is what keeps the 7-day reminder from arriving twice after an upgrade (#35).
    package static let allIdentifiers = stages.map(identifier(elapsedDays:)) + [legacyIdentifier]

    /// One reminder to add.
    package struct Planned: Equatable, Sendable {
        package var id: String
        package var fireAt: Double
        package var elapsedDays: Int
    }

    /// What a reschedule does: remove these ids, then add these requests.
    package struct Plan: Equatable, Sendable {
        package var remove: [String]
        package var add: [Planned]
    }

    /// The rule. `lastRunAt` is the latest stored run's start (nil: no runs).
    ///
    /// Current: remove all five ids; add each stage whose fire date `L + d × 86,400 s` lies strictly
    /// after `now` (a past stage is skipped — `continue`, not `return`, #33); if none did, add the first
    /// stage at `now + 7 d` (#34: the only place `now` is the basis, because the app was opened).
    /// Legacy: remove the old id; add it at `L + 7 d` if that is after `now`, else nothing (#30).
    /// Days are exact 86,400-second intervals (the seed's `addingTimeInterval`), not calendar days: across
    /// a daylight-saving change the local hour of a reminder moves by one.
    package static func plan(lastRunAt: Double?, now: Double, rule: Rule) -> Plan {
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

    package let rule: Rule
    /// The app's notification centre: the device's OS keeps and delivers what is added to it.
    package let center: UNUserNotificationCenter
    /// The language the bodies are written in when scheduled (iOS stores the content as it was then).
    package var language = ReminderTexts.defaultLanguage
    private let logger: Logger
    /// The basis: the latest-started stored run's `startedAt`.
    private let lastRunAt: () throws -> Double?
    package private(set) var rescheduleCount = 0

    package init(rule: Rule, center: UNUserNotificationCenter = .current(), logger: Logger, lastRunAt: @escaping () throws -> Double?) {
        self.rule = rule
        self.center = center
        self.logger = logger
        self.lastRunAt = lastRunAt
    }

    /// A reminder as the notification centre takes it: its date as UTC calendar components, to the
    /// nanosecond (the fire date of a stage is the last run plus whole days, to the second and below).
    func request(_ item: Planned) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = ReminderTexts.title(language: language)
        content.body = ReminderTexts.body(elapsedDays: item.elapsedDays, language: language)
        content.userInfo = ["language": language]
        return UNNotificationRequest(identifier: item.id, content: content, trigger: Self.trigger(at: item.fireAt))
    }

    /// Every date a calendar can name: 0001-01-01 to 9999-12-31T23:59:59Z. A stage beyond it (a run
    /// dated in year 10⁶ by a corrupted store) is scheduled at the calendar's end.
    static let nameableDates: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    static func trigger(at date: Double) -> UNCalendarNotificationTrigger {
        let fireAt = date.isNaN ? nameableDates.upperBound : min(max(date, nameableDates.lowerBound), nameableDates.upperBound)
        let whole = fireAt.rounded(.down)
        var seconds = Int(whole)
        var components = DateComponents()
        components.timeZone = TimeZone(secondsFromGMT: 0)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        seconds -= days * 86_400
        let (year, month, day) = Timestamp.civil(fromDays: Int64(days))
        components.year = year
        components.month = month
        components.day = day
        components.hour = seconds / 3600
        components.minute = seconds % 3600 / 60
        components.second = seconds % 60
        components.nanosecond = Int(((fireAt - whole) * 1e9).rounded())
        return UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
    }

    /// The reminders pending in the centre now (by fire date).
    package func pendingReminders() -> [UNNotificationRequest] {
        var pending: [UNNotificationRequest] = []
        center.getPendingNotificationRequests { pending = $0 }
        return pending.filter { Self.isReminder($0.identifier) }
    }

    /// Replaces the reminders by the rule's plan at device time `now`: the centre takes the removals and
    /// additions together, at the end of this turn of the app's queue. Returns the plan carried out.
    /// `reason` is logged (`saved`, `opened`, `deleted`, `command`).
    @discardableResult
    package func reschedule(now: Double, reason: String) throws -> Plan {
        let last = try lastRunAt()
        let plan = Self.plan(lastRunAt: last, now: now, rule: rule)
        let title = ReminderTexts.title(language: language)
        // Already exactly so (a UI opened again, the same latest run): nothing to write.
        let current = pendingReminders().map { request in
            Held(id: request.identifier, fireAt: Self.fireAt(of: request), title: request.content.title, body: request.content.body)
        }
        let wanted = plan.add.map {
            Held(id: $0.id, fireAt: $0.fireAt, title: title, body: ReminderTexts.body(elapsedDays: $0.elapsedDays, language: language))
        }
        if current.sorted(by: { $0.id < $1.id }) != wanted.sorted(by: { $0.id < $1.id }) {
            center.removePendingNotificationRequests(withIdentifiers: plan.remove)
            for item in plan.add {
                center.add(request(item)) { [logger] error in
                    if let error { logger.error("reminders.add-failed", ["id": item.id, "error": "\(error)"]) }
                }
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

    /// A reminder's identity for "already exactly so": dates within a millisecond are the same.
    struct Held: Equatable {
        var id: String
        var fireAt: Double
        var title: String
        var body: String
        static func == (a: Held, b: Held) -> Bool {
            a.id == b.id && abs(a.fireAt - b.fireAt) < 0.001 && a.title == b.title && a.body == b.body
        }
    }

    /// The fire date of a request the centre holds.
    package static func fireAt(of request: UNNotificationRequest) -> Double {
        switch request.trigger {
        case let trigger as UNCalendarNotificationTrigger: trigger.nextTriggerDate()?.timeIntervalSince1970 ?? 0
        case let trigger as UNTimeIntervalNotificationTrigger: trigger.nextTriggerDate()?.timeIntervalSince1970 ?? 0
        default: 0
        }
    }

    /// Whether `id` is one of the reminders' (the notification centre holds others too).
    package static func isReminder(_ id: String) -> Bool { allIdentifiers.contains(id) }
}
