import Posix

// MARK: - The realistic system's deferrals (`SystemTiming`): when each background transfer may go

/// What the realistic system defers on the sending side, each with why (for the log, the trace and
/// `status`).
package enum SystemDeferralKind: String, Sendable, CaseIterable {
    case userInfo
    case file
    case applicationContext

    /// The key `status` counts it under (`systemTiming.byReason`).
    package var reasonKey: String {
        switch self {
        case .userInfo: "background-transfer"
        case .file: "background-file-transfer"
        case .applicationContext: "application-context"
        }
    }

    /// Apple's words for it.
    var why: String {
        switch self {
        case .userInfo: "a background transfer: the system may defer it"
        case .file: "a background file transfer: the system may defer it"
        case .applicationContext: "an application context: the system sends it when the opportunity arises"
        }
    }
}

/// The deferrals a session has made: when each waiting one may go (monotonic ns), and how many there
/// were, by reason, since the session started.
struct SystemDeferralBook {
    struct Key: Hashable {
        let kind: SystemDeferralKind
        let id: Int64
    }
    var due: [Key: UInt64] = [:]
    var counts: [String: Int] = [:]
    var total = 0
}

/// `status`'s view of them (`systemTiming`).
package struct SystemDeferralSummary: Sendable, Equatable {
    /// `immediate` or `realistic:SEED[:low-power]`.
    package var system: String
    /// Deferrals since the session started, in all and by reason (`SystemDeferralKind.reasonKey`).
    package var deferred: Int
    package var byReason: [String: Int]
    /// Those still waiting now, and how long until the first of them may go (ms).
    package var waiting: Int
    package var nextDueInMilliseconds: UInt64?
}

extension Session {
    /// When `id` of `kind` (a transfer's sequence number, a context's version) may go — `notBefore` at
    /// the earliest (the one ahead of it). Drawn at first sight (`SystemTiming`), then counted, logged
    /// (`system.deferred`) and traced (`runway … events`), once; now, when the system is immediate.
    func systemDue(_ kind: SystemDeferralKind, id: Int64, notBefore: UInt64 = 0) -> UInt64 {
        guard systemTiming.realistic else { return 0 }
        let key = SystemDeferralBook.Key(kind: kind, id: id)
        if let known = systemDeferrals.due[key] { return max(known, notBefore) }
        let delay = systemTiming.transferDeferralMilliseconds(lane: kind.rawValue, seq: id)
        let at = max(notBefore, loop.nowNanoseconds + delay * 1_000_000)
        systemDeferrals.due[key] = at
        systemDeferrals.total += 1
        systemDeferrals.counts[kind.reasonKey, default: 0] += 1
        let reason = "\(kind.why) (\(systemTiming.reason))"
        logger.info("system.deferred", ["lane": kind.rawValue, "seq": id, "delayMs": delay, "reason": reason])
        (handler as? TracingHandler)?.trace.record(.systemDeferred(lane: kind.rawValue, seq: id, delayMs: Int64(delay), reason: reason))
        return at
    }

    /// `id` of `kind` went: it waits no more.
    func systemSent(_ kind: SystemDeferralKind, id: Int64) {
        systemDeferrals.due[SystemDeferralBook.Key(kind: kind, id: id)] = nil
    }

    /// What the system has deferred, for `status`.
    package var systemDeferralSummary: SystemDeferralSummary {
        let now = loop.nowNanoseconds
        let waiting = systemDeferrals.due.values.filter { $0 > now }
        return SystemDeferralSummary(
            system: systemTiming.text, deferred: systemDeferrals.total, byReason: systemDeferrals.counts, waiting: waiting.count,
            nextDueInMilliseconds: waiting.min().map { ($0 - now + 999_999) / 1_000_000 })
    }

    /// One timer for the earliest deferred transfer's time: the pump comes back then.
    func pumpAgain(at: UInt64) {
        if let scheduled = systemDeferralTimerAt, scheduled <= at, scheduled > loop.nowNanoseconds { return }
        systemDeferralTimerAt = at
        let now = loop.nowNanoseconds
        loop.schedule(afterMilliseconds: at > now ? (at - now + 999_999) / 1_000_000 : 0) { [weak self] in
            guard let self else { return }
            if self.systemDeferralTimerAt == at { self.systemDeferralTimerAt = nil }
            self.pump()
            self.sendApplicationContextIfNeeded()
        }
    }
}
