import Control
import Foundation
import JSONText
import Posix
import Storage
import WatchConnectivity
import RunWayDomain
import WatchKit

/// RunWay's watch app, as a tenant of the simulated watch: it records runs and queues them for the phone
/// through `WCSession.default` (the system's durable queue), runs live runs with GPWS, mirrors the runs
/// the phone leads, and answers its own control commands.
package final class RunWayWatchApp {
    package struct Options: Sendable {
        /// GPWS as RunWay 1.3 fixed it, or as it was before (`--gpws legacy`).
        package var gpws: GPWSBehaviour = .fixed
        /// `--failed-transfer requeue|legacy`: whether the app queues a failed transfer's run again.
        package var requeueFailedTransfers = true
        /// RunWay 1.4's dead instrument stream, on purpose (`--instrument-stream`): a message every 3 s
        /// while a run is in progress and the phone is reachable.
        package var instrumentStream = false
        /// `--received-transfers once|legacy`: a transfer delivered again after a crash counted once, or
        /// (legacy, the app before issue 51) each time it is delivered.
        package var countsEachTransferOnce = true
        package init() {}
    }

    let options: Options
    let context: AppContext
    let logger: Logger
    let session = AppSession()
    package private(set) var database: Database!
    var app: AppConnectivity!
    /// Files received and sent (`AppFiles.swift`).
    var files: AppFiles!
    var recorder: WatchRunRecorder!
    /// The watch app's session delegate; held here because the session holds its delegate weakly.
    var service: WatchConnectivityService!
    /// The live run (`runway watch run ...`) and how the watch answers a phone-led start (`WatchWorkout.swift`).
    var runs: RunCommands!
    /// The runs' HealthKit workouts, and the session mirrored to the phone (`RunHealth`).
    var health: RunHealth!
    /// The phone-led runs the watch ended, and whether it saved each (issue 51).
    var ledger: RunHealthLedger!
    var workoutStartFault = WorkoutStartFault.none
    private var generator = FlightGenerator()

    package init(options: Options, context: AppContext) {
        self.options = options
        self.context = context
        logger = context.logger
    }

    /// The app's launch: its store, its delegate, activation.
    package func launch() throws {
        database = try RunWayStore.open(container: context.container, logger: logger, fail: context.fail)
        context.registerStore(database)
        logger.info("startup.store-opened", ["path": RunWayStore.path(container: context.container)])
        ledger = RunHealthLedger(database: database)
        app = AppConnectivity(database: database, logger: logger) { [loop = context.loop] delay, body in
            loop.schedule(afterMilliseconds: delay, body)
        }
        app.countsEachTransferOnce = options.countsEachTransferOnce
        service = WatchConnectivityService(app: app, logger: logger)
        files = AppFiles(database: database, container: context.container, logger: logger) { [loop = context.loop] delay, body in
            loop.schedule(afterMilliseconds: delay, body)
        }
        service.files = files
        service.requeueFailedTransfers = options.requeueFailedTransfers
        WCSession.default.setUserInfoValidator(Flight.problem(inUserInfo:))
        WCSession.default.delegate = service
        recorder = WatchRunRecorder(logger: logger)
        runs = try RunCommands(database: database, now: context.deviceNow, behaviour: options.gpws, logger: logger)
        installRuns()
        registerCommands(on: context.router)
        // watch-os may have launched the app for the phone's content (its WatchKit task comes here), or
        // relaunched it for the workout session it died in (`handleActiveWorkoutRecovery`, which takes the
        // session back). Set once the runs are restored, before the session activates.
        WKApplication.shared().delegate = self
        // Any other launch: the session the OS kept, if any (a reclaim or jetsam ended the app mid-run),
        // else a fresh one for a run restored from the store.
        health.recover(runs.run)
        context.contributeStatus { [unowned self] status in try self.addStatus(to: &status) }
        service.onActivation = { [unowned self] state, _ in
            guard state == .activated, !WCSession.default.isPaired else { return }
            // The container is HOME/apps/BUNDLE-ID.
            let home = ((self.context.container as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            self.logger.warning("watch.not-paired", ["hint": "run: runway pair --phone PHONE_HOME --watch \(home)"])
        }
        WCSession.default.activate()
    }

    // MARK: - Control commands

    func registerCommands(on router: ControlRouter) {
        runs.register(on: router)
        files.register(on: router)
        router.on(ControlCommands.WorkoutFault.self) { [unowned self] args in try workoutFaultCommand(args.mode) }
        router.on(ControlCommands.Record.self) { [unowned self] args in try record(args) }
        router.on(ControlCommands.Received.self) { [unowned self] args in
            ReceivedReply(try app.receivedUserInfo(limit: args.limit).map(\.userInfo.jsonObject))
        }
    }

    func addStatus(to status: inout StatusReply) throws {
        var fields = status.other
        fields["inbox"] = .object([
            "depth": .integer(0), "receivedUserInfo": .integer(try app.receivedUserInfoCount()), "receivedFiles": .integer(try files.receivedCount()),
        ])
        fields["container"] = context.containerJSON
        let complication = try app.complication()
        fields["complication"] = .object(["updates": .integer(complication.updates), "current": complication.current?.json ?? .null])
        fields.merge(session.versionFields(peerKey: "phoneAppVersion")) { _, new in new }
        fields.merge(languageStatusFields) { _, new in new }
        status.other = fields
    }

    /// `count` finished runs, queued for the phone in one durable write.
    func record(_ args: ControlCommands.Record) throws -> RecordReply {
        guard session.isLocalAppInstalled else {
            throw ControlError("the RunWay watch app is not installed on this watch, so it cannot record runs (runway watch app install)")
        }
        let count = args.count
        let distance = args.distanceKm
        if let seed = args.seed {
            generator = FlightGenerator(seed: UInt64(seed))
        }
        // One durable write for the whole series (one fsync), generated a slice at a time so that a
        // million runs never sit in memory together; the newest run ends at the watch's now (device
        // time, `runway clock`). Part of a longer series the CLI records in chunks: where this chunk
        // sits, and the series' end. The series' bounds depend on count: checked here, in the
        // catalogue's words.
        let total = args.seriesTotal ?? count
        guard total >= count else { throw ControlError.invalid("seriesTotal must be a whole number from \(count) to 1000000") }
        let start = args.seriesStart ?? 0
        guard start <= total - count else { throw ControlError.invalid("seriesStart must be a whole number from 0 to \(total - count)") }
        let now = args.endingAt ?? context.deviceNow()
        let recording = try recorder.record(
            count: count, distanceKm: distance, now: now, seriesStart: start, seriesTotal: total,
            using: &generator)
        // Committed, not yet answered: a crash here leaves flights queued whose recording never
        // reported success (docs/guarantees.md, "indeterminate recordings").
        CrashPoint.hit("send.after-enqueue")
        return RecordReply(ids: recording.ids, firstTransfer: recording.firstTransfer, lastTransfer: recording.lastTransfer, endingAt: now)
    }
}
