import Connectivity
import Control
import JSONText
import Posix

/// The watch's link conditions (`runway link set|show|schedule`, docs/link-conditions.md), kept by
/// whoever holds the watch's link: the watch app's process (`DeviceHost`, on its connector), or
/// `watch-os` while the app is not running (on its own connection).
///
/// Both keep them in the home, so the air between the devices does not change because a process
/// restarted or the link changed hands: the conditions in `HOME/link-conditions.json` (written atomically
/// before they take effect; removed when the air is clear again), and a schedule while it plays in
/// `HOME/link-schedule.json` (`SavedLinkSchedule`: its steps, its seed, when it started on the monotonic
/// clock every process shares, how many steps were applied). The one taking the link over reads both
/// (`takeOver`) and plays the rest of the schedule; the one handing it over stops its timer
/// (`handOver`). A step is saved in the conditions before it is counted as applied, and applying a step
/// to conditions it already changed changes nothing, so a holder that died in between loses no step.
package final class LinkConditionsKeeper {
    package let air: LinkAir
    let home: String
    let loop: EventLoop
    let logger: Logger
    /// Carries new conditions to the link.
    private let carry: (LinkConditions) -> Void
    private let connected: () -> Bool
    private let heldInAir: () -> Int
    private var schedule: LinkSchedulePlayer?

    package init(
        home: String, air: LinkAir, loop: EventLoop, logger: Logger, carry: @escaping (LinkConditions) -> Void,
        connected: @escaping () -> Bool, bytesInAir: @escaping () -> Int
    ) {
        self.home = home
        self.air = air
        self.loop = loop
        self.logger = logger
        self.carry = carry
        self.connected = connected
        heldInAir = bytesInAir
    }

    package var conditionsPath: String { home + "/link-conditions.json" }
    package var schedulePath: String { home + "/link-schedule.json" }

    /// `link-show`, `link-set` and `link-schedule`; `refusal` says why this process may not change the
    /// conditions now (watch-os once it has launched the app: the app holds the link).
    package func register(on router: ControlRouter, refusal: @escaping () -> ControlError? = { nil }) {
        router.on(ControlCommands.LinkShow.self) { [unowned self] _ in reply() }
        router.on(ControlCommands.LinkSet.self) { [unowned self] args in
            if let refused = refusal() { throw refused }
            let change = LinkConditionsChange(
                latencyMilliseconds: args.latencyMs, jitterMilliseconds: args.jitterMs, loss: args.loss, bandwidthKbps: args.bandwidthKbps,
                range: args.range.flatMap(LinkRange.init(rawValue:)), reset: args.reset)
            let conditions = change.applied(to: air.conditions)
            if let problem = conditions.problem { throw ControlError.invalid(problem) }
            try save(conditions)
            if let player = schedule { stop(player, reason: "runway link set") }
            if let seed = args.seed { air.reseed(UInt64(seed)) }
            apply(conditions, by: "runway link set")
            return reply()
        }
        router.on(ControlCommands.LinkSchedule.self) { [unowned self] args in
            if let refused = refusal() { throw refused }
            let steps = try LinkSchedule.parse(steps: args.steps)
            if let player = schedule { stop(player, reason: "a new schedule") }
            let seed = args.seed.map(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
            air.reseed(seed)
            let player = LinkSchedulePlayer(steps: steps, seed: seed, startedAt: loop.nowNanoseconds)
            schedule = player
            logger.notice("link.schedule-started", ["steps": steps.count, "seed": seed, "lastAtMs": steps.last?.at ?? 0])
            playDueSteps(player)
            return reply()
        }
    }

    package func reply() -> LinkConditionsReply {
        var reply = LinkConditionsReply(
            conditions: air.conditions, connected: connected(), seed: Int64(truncatingIfNeeded: air.seed), framesCarried: Int64(air.framesCarried),
            framesLost: Int64(air.framesLost))
        reply.bytesInAir = Int64(heldInAir())
        reply.mostBytesInAir = Int64(air.mostBytesInAir)
        if let player = schedule {
            reply.scheduleSteps = Int64(player.steps.count)
            reply.scheduleApplied = Int64(player.applied)
            if player.applied < player.steps.count {
                let due = player.due(player.applied), now = loop.nowNanoseconds
                reply.scheduleNextInMs = Int64(due > now ? (due - now) / 1_000_000 : 0)
            }
        }
        return reply
    }

    // MARK: - Taking the link over, handing it over

    /// This process holds the link now (the watch app starting; watch-os once the app is gone): the
    /// conditions in the home apply, and a schedule saved there plays on from where it was. A file that
    /// cannot be read is logged and left out (clear air, no schedule): a bad file must not keep the watch
    /// from starting.
    package func takeOver() {
        if let player = schedule { release(player) }
        var conditions = LinkConditions()
        if Filesystem.kind(of: conditionsPath) != .missing {
            do {
                conditions = try LinkSchedule.conditions(from: try JSONValue(parsing: try Filesystem.readFile(conditionsPath)))
                logger.notice(
                    "link.conditions-restored",
                    [
                        "range": conditions.range.rawValue, "latencyMs": conditions.latencyMilliseconds, "jitterMs": conditions.jitterMilliseconds,
                        "loss": conditions.loss, "bandwidthKbps": conditions.bandwidthKbps,
                    ])
            } catch {
                logger.warning("link.conditions-unreadable", ["path": conditionsPath, "error": "\(error)", "action": "clear air"])
            }
        }
        if conditions != air.conditions { carry(conditions) }
        guard Filesystem.kind(of: schedulePath) != .missing else { return }
        let saved: SavedLinkSchedule
        do { saved = try SavedLinkSchedule.parse(try Filesystem.readFile(schedulePath)) } catch {
            logger.warning("link.schedule-unreadable", ["path": schedulePath, "error": "\(error)", "action": "no schedule"])
            return
        }
        guard saved.startedAt <= loop.nowNanoseconds else {
            // Started on a monotonic clock that has since restarted (the machine did): it is over.
            logger.notice("link.schedule-ended", ["steps": saved.steps.count, "why": "saved before the machine restarted"])
            removeSaved()
            return
        }
        air.reseed(saved.seed)
        let player = LinkSchedulePlayer(steps: saved.steps, seed: saved.seed, startedAt: saved.startedAt)
        player.applied = saved.applied
        schedule = player
        logger.notice("link.schedule-resumed", ["steps": saved.steps.count, "applied": saved.applied, "seed": saved.seed])
        playDueSteps(player)
    }

    /// Another process holds the link from now on (watch-os launched the app): the schedule stops
    /// playing here and stays saved in the home, for it.
    package func handOver() {
        guard let player = schedule else { return }
        release(player)
        logger.info("link.schedule-handed-over", ["applied": player.applied, "steps": player.steps.count])
    }

    private func release(_ player: LinkSchedulePlayer) {
        if let timer = player.timer { loop.cancel(timer) }
        player.timer = nil
        schedule = nil
    }

    // MARK: - Playing a schedule

    /// Applies every step whose time has come, in order, then waits for the next.
    private func playDueSteps(_ player: LinkSchedulePlayer) {
        guard schedule === player else { return }
        player.timer = nil
        let now = loop.nowNanoseconds
        while player.applied < player.steps.count, player.due(player.applied) <= now {
            let step = player.steps[player.applied]
            let conditions = step.change.applied(to: air.conditions)
            do { try save(conditions) } catch {
                logger.warning("link.conditions-not-saved", ["error": error.message, "step": player.applied + 1])
            }
            player.applied += 1
            apply(conditions, by: "schedule step \(player.applied) of \(player.steps.count) at \(step.at) ms")
        }
        guard player.applied < player.steps.count else {
            logger.notice("link.schedule-ended", ["steps": player.steps.count])
            removeSaved()
            return
        }
        saveSchedule(player)
        let due = player.due(player.applied)
        player.timer = loop.schedule(afterNanoseconds: due > now ? due - now : 0) { [weak self, weak player] in
            guard let self, let player else { return }
            self.playDueSteps(player)
        }
    }

    private func stop(_ player: LinkSchedulePlayer, reason: String) {
        release(player)
        if player.applied < player.steps.count {
            logger.notice("link.schedule-stopped", ["by": reason, "applied": player.applied, "steps": player.steps.count])
        }
        removeSaved()
    }

    private func apply(_ conditions: LinkConditions, by: String) {
        carry(conditions)
        logger.notice(
            "link.conditions",
            [
                "range": conditions.range.rawValue, "latencyMs": conditions.latencyMilliseconds, "jitterMs": conditions.jitterMilliseconds,
                "loss": conditions.loss, "bandwidthKbps": conditions.bandwidthKbps, "by": by,
            ])
    }

    // MARK: - Taken down by the user (`runway link down|up`)

    /// Present while the user has taken the watch out of range with `runway link down` under watch-os:
    /// the radio is the system's, so the state outlives the app's launches and the hand-overs.
    package var takenDownPath: String { home + "/link-down" }

    /// Whether `runway link down` holds the link down (under watch-os).
    package var isTakenDown: Bool { Filesystem.kind(of: takenDownPath) != .missing }

    /// Records `runway link down` (or removes it for `up`) durably, before it takes effect.
    package func setTakenDown(_ down: Bool) throws(ControlError) {
        guard down != isTakenDown else { return }
        do {
            if down { try Filesystem.writeAtomically(Array("down\n".utf8), to: takenDownPath) } else { try Filesystem.removeDurably(takenDownPath) }
        } catch {
            throw ControlError("could not record the link \(down ? "down" : "up") in \(takenDownPath): \(error)")
        }
    }

    // MARK: - Kept in the home

    /// Written before the conditions take effect: if it cannot be saved, nothing changes (exit 1).
    private func save(_ conditions: LinkConditions) throws(ControlError) {
        let path = conditionsPath
        if conditions == LinkConditions() {
            do { try Filesystem.removeDurably(path) } catch { throw ControlError("could not remove \(path): \(error)") }
            return
        }
        do { try Filesystem.writeAtomically(Array(LinkSchedule.json(conditions).text.utf8), to: path) } catch {
            throw ControlError("could not save the link conditions in \(path): \(error)")
        }
    }

    private func saveSchedule(_ player: LinkSchedulePlayer) {
        let saved = SavedLinkSchedule(steps: player.steps, seed: player.seed, startedAt: player.startedAt, applied: player.applied)
        do { try Filesystem.writeAtomically(Array(saved.json.text.utf8), to: schedulePath) } catch {
            logger.warning("link.schedule-not-saved", ["error": "\(error)", "effect": "a restart or a hand-over ends it"])
        }
    }

    private func removeSaved() {
        do { try Filesystem.removeDurably(schedulePath) } catch {
            logger.warning("link.schedule-not-removed", ["path": schedulePath, "error": "\(error)"])
        }
    }
}

/// A schedule of link conditions playing on the loop of whoever holds the link: one timer, for the next
/// step; each step changes the conditions as `runway link set` would.
final class LinkSchedulePlayer {
    let steps: [LinkSchedule.Step]
    let seed: UInt64
    /// The monotonic clock when it started, nanoseconds (the loop's clock: `CLOCK_MONOTONIC`).
    let startedAt: UInt64
    var applied = 0
    var timer: EventLoop.TimerID?

    init(steps: [LinkSchedule.Step], seed: UInt64, startedAt: UInt64) {
        self.steps = steps
        self.seed = seed
        self.startedAt = startedAt
    }

    func due(_ index: Int) -> UInt64 { startedAt + UInt64(steps[index].at) * 1_000_000 }
}
