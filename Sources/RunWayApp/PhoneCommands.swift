import Control
import JSONText
import Posix
import RunWayDomain

// MARK: - The phone's control commands

extension RunWayPhoneApp {
    /// Every command the phone app answers, on the device's router (over the device's own: the app's
    /// `context-set` wraps the session's).
    func registerCommands(on router: ControlRouter) {
        registerLanguageCommands(on: router)
        registerUpdateCommands(on: router)
        registerReminderCommands(on: router)
        registerAlertCommands(on: router)
        phoneRuns.runs.register(on: router)
        files.register(on: router)
        // `logbook` and `flight` stay JSON (the only replies of the app with no reply type): a flight is
        // declared once, as `Flight.fields`, which the phone's in-place reader needs; a `Codable` twin in
        // Control would declare every field again. `logbook` is also streamed, a page at a time.
        router.on(ControlCommands.Logbook.self) { [unowned self] (_, connection: ControlConnection) in streamLogbook(to: connection) }
        router.on(ControlCommands.Flight.self) { [unowned self] args in JSONReply(try flight(args.id)) }
        router.on(ControlCommands.Delete.self) { [unowned self] args in try delete(args.id) }
        router.on(ControlCommands.Attach.self) { [unowned self] (_, connection: ControlConnection) in try attach(connection) }
        router.on(ControlCommands.Preflight.self) { [unowned self] args in preflight(legacy: args.legacy) }
        router.on(ControlCommands.Received.self) { [unowned self] args in
            ReceivedReply(try app.receivedUserInfo(limit: args.limit).map(\.userInfo.jsonObject))
        }
    }

    /// The app's fields of `status`.
    func addStatus(to status: inout StatusReply) throws {
        status.savePath = options.savePath.rawValue
        status.flights = Int64(try store.count())
        status.uiClients = Int64(control.attachedClients.count)
        var fields = status.other
        fields.merge([
            "pendingWatchDataQueue": .integer(Int64(viewModel.pendingWatchDataQueue.count)),
            "inbox": .object([
                "depth": .integer(Int64(viewModel.pendingWatchDataQueue.count)),
                "receivedUserInfo": .integer(try app.receivedUserInfoCount()),
                "receivedFiles": .integer(try files.receivedCount()),
            ]),
            "instrumentValuesDiscarded": .integer(Int64(service.instrumentValuesDiscarded)),
            // Issue 51: phone-led runs whose Health save is not settled yet (the watch's save not heard of,
            // a save taken back and not made, a look-up of the watch's Health store under way).
            "healthDecisionsPending": .integer(phoneRuns.pendingCount),
            "remindersRescheduled": .integer(Int64(reminderHook.rescheduleCount)),
            "reminderRule": .string(options.reminderRule.rawValue),
            "container": context.containerJSON,
        ]) { _, new in new }
        fields.merge(session.versionFields(peerKey: "watchAppVersion")) { _, new in new }
        status.other = fields
    }

    /// Every stored flight as a JSON array, streamed a page at a time in arrival order.
    func streamLogbook(to connection: ControlConnection) {
        var lastArrival: Int64 = 0
        var started = false
        var finished = false
        connection.replyStreaming { [unowned self] in
            if finished { return nil }
            var writer = JSONWriter(capacity: 256 * 1024)
            writer.bytes.append(started ? 0x2C : 0x5B)
            var first = true
            let rows = try self.store.forEachSummary(afterArrival: lastArrival, limit: 1000) { stored in
                if !first { writer.bytes.append(0x2C) }
                first = false
                stored.writeJSON(to: &writer)
                lastArrival = stored.arrival
            }
            if rows == 0 {
                // Undo the separator written before we knew the page was empty.
                writer.bytes.removeLast()
                if !started { writer.bytes.append(0x5B) }
                writer.bytes.append(0x5D)
                finished = true
            }
            started = true
            return writer.bytes
        }
    }

    func flight(_ id: String) throws -> JSONValue {
        let id = id.uppercased()
        guard let stored = try store.flight(id: id) else { throw ControlError("no flight \(id) in the logbook") }
        var writer = JSONWriter()
        stored.writeJSON(to: &writer, includeSamples: true)
        return try JSONValue(parsing: writer.bytes)
    }

    func delete(_ id: String) throws -> DeleteReply {
        let id = id.uppercased()
        guard try store.delete(id: id) else { throw ControlError("no flight \(id) in the logbook; nothing deleted") }
        logger.info("app.flight-deleted", ["id": id])
        do { try reminders.reschedule(reason: "deleted") } catch {
            logger.error("reminders.reschedule-failed", ["reason": "deleted", "error": "\(error)"])
        }
        return DeleteReply(deleted: id)
    }

    /// A UI client attaches, like the home screen appearing: the fallback queue is drained now (in
    /// `ui-drain` mode this is the first time those flights reach the store), then flights saved from now
    /// on are pushed to it as events until it goes. The flights drained here are not sent to it as
    /// events (other UIs get them): it lists the logbook next, which holds them.
    func attach(_ connection: ControlConnection) throws {
        // Within the followers' budget, or refused (one line, exit 1) before anything is drained.
        try connection.checkFollowerRoom()
        let drained = viewModel.drainPendingQueue(reason: "UI attached")
        try connection.attach()
        connection.onClose = { [unowned self] in
            self.logger.info("ui.detached", ["clients": self.control.attachedClients.count])
        }
        logger.info("ui.attached", ["clients": control.attachedClients.count, "drained": drained])
        // The app was opened: the one moment the reminders' basis may move to now (seed 001).
        do { try reminders.reschedule(reason: "opened") } catch {
            logger.error("reminders.reschedule-failed", ["reason": "opened", "error": "\(error)"])
        }
        connection.reply(AttachReply(drained: Int64(drained)))
        // The app was launched with a screen: the update check (at most once a day; its answer comes
        // later, on the loop, and never holds up the attach reply).
        checkForUpdate()
    }
}
