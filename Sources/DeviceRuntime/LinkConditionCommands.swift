import Connectivity
import Control
import JSONText
import Posix

/// A schedule of link conditions playing on the watch's loop (`runway link schedule`): one timer, for
/// the next step; each step changes the conditions as `runway link set` would.
final class LinkSchedulePlayer {
    let steps: [LinkSchedule.Step]
    /// The loop's clock when it started, nanoseconds.
    let startedAt: UInt64
    var applied = 0
    var timer: EventLoop.TimerID?

    init(steps: [LinkSchedule.Step], startedAt: UInt64) {
        self.steps = steps
        self.startedAt = startedAt
    }

    func due(_ index: Int) -> UInt64 { startedAt + UInt64(steps[index].at) * 1_000_000 }
}

/// The watch's link conditions (`runway link set|show|schedule`, docs/link-conditions.md).
///
/// The watch applies them on its connection (`LinkAir`); they are kept in `HOME/link-conditions.json`
/// (written atomically, before they take effect) and applied again when the watch starts: the air
/// between the devices does not change because a process restarted. A schedule is not kept: a restart
/// ends it, leaving the conditions its last step set.
extension DeviceHost {
    var linkConditionsPath: String { home.path + "/link-conditions.json" }

    func registerLinkConditionCommands(on router: ControlRouter) {
        router.on("link-show") { [unowned self] _, connection in connection.reply(linkConditionsReply()) }
        router.on("link-set") { [unowned self] request, connection in
            guard let connector else { throw ControlError("this device has no link to condition") }
            let change = LinkConditionsChange(
                latencyMilliseconds: request[ControlCommands.LinkSet.latency], jitterMilliseconds: request[ControlCommands.LinkSet.jitter],
                loss: request[ControlCommands.LinkSet.loss], bandwidthKbps: request[ControlCommands.LinkSet.bandwidth],
                range: request[ControlCommands.LinkSet.range].flatMap(LinkRange.init(rawValue:)), reset: request[ControlCommands.LinkSet.reset])
            let conditions = change.applied(to: connector.air.conditions)
            if let problem = conditions.problem { throw ControlError.invalid(problem) }
            try saveLinkConditions(conditions)
            if let player = linkSchedule { stopLinkSchedule(player, reason: "runway link set") }
            if let seed = request[ControlCommands.LinkSet.seed] { connector.air.reseed(UInt64(seed)) }
            apply(conditions, to: connector, by: "runway link set")
            connection.reply(linkConditionsReply())
        }
        router.on("link-schedule") { [unowned self] request, connection in
            guard let connector else { throw ControlError("this device has no link to condition") }
            let steps = try LinkSchedule.parse(steps: request[ControlCommands.LinkScheduleArguments.steps])
            if let player = linkSchedule { stopLinkSchedule(player, reason: "a new schedule") }
            let seed = request[ControlCommands.LinkScheduleArguments.seed].map(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
            connector.air.reseed(seed)
            let player = LinkSchedulePlayer(steps: steps, startedAt: loop.nowNanoseconds)
            linkSchedule = player
            logger.notice("link.schedule-started", ["steps": steps.count, "seed": seed, "lastAtMs": steps.last?.at ?? 0])
            playDueSteps(player)
            connection.reply(linkConditionsReply())
        }
    }

    func linkConditionsReply() -> LinkConditionsReply {
        let air = connector?.air
        var reply = LinkConditionsReply(
            conditions: air?.conditions ?? LinkConditions(), connected: connector?.isConnected ?? false, seed: Int64(air?.seed ?? 0),
            framesCarried: Int64(air?.framesCarried ?? 0), framesLost: Int64(air?.framesLost ?? 0))
        reply.bytesInAir = Int64(connector?.bytesInAir ?? 0)
        reply.mostBytesInAir = Int64(air?.mostBytesInAir ?? 0)
        if let player = linkSchedule {
            reply.scheduleSteps = Int64(player.steps.count)
            reply.scheduleApplied = Int64(player.applied)
            if player.applied < player.steps.count {
                let due = player.due(player.applied), now = loop.nowNanoseconds
                reply.scheduleNextInMs = Int64(due > now ? (due - now) / 1_000_000 : 0)
            }
        }
        return reply
    }

    // MARK: - Playing a schedule

    /// Applies every step whose time has come, in order, then waits for the next.
    private func playDueSteps(_ player: LinkSchedulePlayer) {
        guard linkSchedule === player, let connector else { return }
        player.timer = nil
        let now = loop.nowNanoseconds
        while player.applied < player.steps.count, player.due(player.applied) <= now {
            let step = player.steps[player.applied]
            player.applied += 1
            let conditions = step.change.applied(to: connector.air.conditions)
            do { try saveLinkConditions(conditions) } catch {
                logger.warning("link.conditions-not-saved", ["error": error.message, "step": player.applied])
            }
            apply(conditions, to: connector, by: "schedule step \(player.applied) of \(player.steps.count) at \(step.at) ms")
        }
        guard player.applied < player.steps.count else {
            logger.notice("link.schedule-ended", ["steps": player.steps.count])
            return
        }
        let due = player.due(player.applied)
        player.timer = loop.schedule(afterNanoseconds: due > now ? due - now : 0) { [weak self, weak player] in
            guard let self, let player else { return }
            self.playDueSteps(player)
        }
    }

    private func stopLinkSchedule(_ player: LinkSchedulePlayer, reason: String) {
        if let timer = player.timer { loop.cancel(timer) }
        if player.applied < player.steps.count {
            logger.notice("link.schedule-stopped", ["by": reason, "applied": player.applied, "steps": player.steps.count])
        }
        linkSchedule = nil
    }

    private func apply(_ conditions: LinkConditions, to connector: UnixLinkConnector, by: String) {
        connector.setConditions(conditions)
        logger.notice(
            "link.conditions",
            [
                "range": conditions.range.rawValue, "latencyMs": conditions.latencyMilliseconds, "jitterMs": conditions.jitterMilliseconds,
                "loss": conditions.loss, "bandwidthKbps": conditions.bandwidthKbps, "by": by,
            ])
    }

    // MARK: - Kept in the home

    /// Written before the conditions take effect: if it cannot be saved, nothing changes (exit 1).
    private func saveLinkConditions(_ conditions: LinkConditions) throws(ControlError) {
        let path = linkConditionsPath
        if conditions == LinkConditions() {
            do { try Filesystem.removeDurably(path) } catch { throw ControlError("could not remove \(path): \(error)") }
            return
        }
        do { try Filesystem.writeAtomically(Array(LinkSchedule.json(conditions).text.utf8), to: path) } catch {
            throw ControlError("could not save the link conditions in \(path): \(error)")
        }
    }

    /// At start-up: the conditions the watch had, if any. A file that cannot be read is set aside with a
    /// warning, and the link starts in clear air (a bad file must not keep the watch from starting).
    func restoreLinkConditions(_ connector: UnixLinkConnector) {
        let path = linkConditionsPath
        guard Filesystem.kind(of: path) != .missing else { return }
        do {
            let conditions = try LinkSchedule.conditions(from: try JSONValue(parsing: try Filesystem.readFile(path)))
            connector.setConditions(conditions)
            logger.notice(
                "link.conditions-restored",
                [
                    "range": conditions.range.rawValue, "latencyMs": conditions.latencyMilliseconds, "jitterMs": conditions.jitterMilliseconds,
                    "loss": conditions.loss, "bandwidthKbps": conditions.bandwidthKbps,
                ])
        } catch {
            logger.warning("link.conditions-unreadable", ["path": path, "error": "\(error)", "action": "clear air"])
        }
    }
}
