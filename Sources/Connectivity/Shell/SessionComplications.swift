import Posix
import Storage
import PropertyLists

/// The complication budget as a pure rule: 50 `transferCurrentComplicationUserInfo` calls a day while the
/// complication is on the active watch face, none while it is not (Apple: "If the complication is on the
/// active watch face, you are given 50 transfers a day. If the complication is not active, this property
/// defaults to 0"). A day is the device clock's local calendar day (`runway clock`, the zone of `TZ`).
package struct ComplicationBudget: Equatable, Sendable {
    package static let perDay = 50

    /// The day the count is for, as YYYYMMDD.
    package var day: Int
    /// Complication transfers spent that day.
    package var used: Int

    package init(day: Int, used: Int) {
        self.day = day
        self.used = used
    }

    /// The local calendar day of `seconds` (since 1970), as YYYYMMDD.
    package static func day(of seconds: Double) -> Int {
        let range = Timestamp.formattableRange
        var time = time_t(seconds.isNaN ? range.lowerBound : min(max(seconds, range.lowerBound), range.upperBound).rounded(.down))
        var parts = tm()
        localtime_r(&time, &parts)
        return (Int(parts.tm_year) + 1900) * 10_000 + (Int(parts.tm_mon) + 1) * 100 + Int(parts.tm_mday)
    }

    /// What is left on `today`: a new day starts with the whole budget; none while the complication is off.
    package func remaining(today: Int, enabled: Bool) -> Int {
        guard enabled else { return 0 }
        return max(0, Self.perDay - (today == day ? used : 0))
    }

    /// The budget after one complication transfer on `today`.
    package func spending(today: Int) -> ComplicationBudget {
        ComplicationBudget(day: today, used: (today == day ? used : 0) + 1)
    }
}

// MARK: - transferCurrentComplicationUserInfo: the complication lane, ahead of the userInfo lane

extension Session {
    /// The budget as stored (the day it counts and what was spent on it).
    func storedComplicationBudget() throws -> ComplicationBudget {
        ComplicationBudget(
            day: Int(try SessionStore.stateValue(database, "complication.day") ?? "") ?? 0,
            used: Int(try SessionStore.stateValue(database, "complication.used") ?? "") ?? 0)
    }

    /// `remainingComplicationUserInfoTransfers`: what is left today on the device's clock, 0 while the
    /// watch's complication is off (or on the watch, which sends none).
    package func remainingComplicationUserInfoTransfers() throws -> Int {
        guard role == .phone else { return 0 }
        return try storedComplicationBudget().remaining(today: ComplicationBudget.day(of: deviceClock()), enabled: core.counterpart.complicationEnabled)
    }

    /// Queues a complication userInfo: in the complication lane — sent before any queued userInfo, with
    /// its own sequence numbers — while today's budget lasts; once it is spent (or the complication is
    /// off), as a plain `transferUserInfo` (Apple: "any additional calls … use transferUserInfo:
    /// instead"). The enqueue and the budget move in one transaction, committed before this returns.
    package func transferCurrentComplicationUserInfo(_ userInfo: UserInfo) throws -> UserInfoTransfer {
        guard role == .phone else {
            throw WCError(.invalidParameter, "complication data is sent from the iOS app to the watch (transferCurrentComplicationUserInfo is iOS only)")
        }
        try requireActivated()
        try requireCounterpartApp()
        if let problem = userInfoValidator?(userInfo) {
            throw WCError(.payloadUnsupportedTypes, "the counterpart's app could not take this userInfo: \(problem)")
        }
        let payload = try encodeChecked(userInfo, limit: configuration.userInfoByteLimit, what: "userInfo")
        let today = ComplicationBudget.day(of: deviceClock())
        let enabled = core.counterpart.complicationEnabled
        let (seq, lane, left): (Int64, TransferLane, Int) = try database.transaction {
            let budget = try storedComplicationBudget()
            guard budget.remaining(today: today, enabled: enabled) > 0 else {
                return (try outbox.enqueue(.userInfo, [payload])[0], .userInfo, 0)
            }
            let seq = try outboxes.complication.enqueue(.userInfo, [payload])[0]
            let spent = budget.spending(today: today)
            try SessionStore.setStateValue(database, "complication.day", String(spent.day))
            try SessionStore.setStateValue(database, "complication.used", String(spent.used))
            return (seq, .complication, spent.remaining(today: today, enabled: enabled))
        }
        if lane == .complication {
            logger.info("complication.queued", ["seq": seq, "remainingToday": left])
        } else {
            logger.notice(
                "complication.as-userinfo",
                ["seq": seq, "reason": enabled ? "no complication transfers left today" : "the complication is not on the watch face"])
        }
        outboxQueued(lane)
        return UserInfoTransfer(seq: seq, userInfo: userInfo, lane: lane)
    }

    /// Whether `seq` is the newest complication transfer queued (`isCurrentComplicationInfo`).
    package func isCurrentComplication(seq: Int64) -> Bool {
        (try? outboxes.complication.lastAssignedSeq()) == seq
    }

    /// The outstanding complication transfers, oldest first.
    package func outstandingComplicationTransfers(limit: Int) throws -> [UserInfoTransfer] {
        try outboxes.complication.first(limit).map { entry in
            UserInfoTransfer(seq: entry.seq, userInfo: (try? PropertyListCodec.decodeDictionary(entry.payload)) ?? [:], lane: .complication)
        }
    }

    package func outstandingComplicationTransferCount() throws -> Int { try outboxes.complication.count() }
}
