import Connectivity
import JSONText

/// The catalogue of the control protocol: every command, its arguments and its failures, in one place.
/// The daemons' router, the `runway` CLI's requests, `runway man` and `docs/protocol.md` all read it.
package enum ControlCommands {
    static let both: Set<ControlServerKind> = [.phone, .watch]
    /// What the OS answers: the device's own process when the OS runs there, phone-os when it runs the phone.
    static let os: Set<ControlServerKind> = [.phone, .watch, .phoneOS, .watchOS]

    package static let all: [ControlCommandSpec] =
        [
            transferUserInfo, transferComplication, transferFile, contextSet, message, messageData, cancel,
            quarantineRemove, events,
            status, runStart, runSample, runStatus, runStop, runReplay,
            logbook, flight, delete, attach, preflight, reminders,
            remindersReschedule, alerts, groups, groupSet, groupsReset, appstoreSet, appstoreFail, appstoreShow,
            updateCheck, updateStatus, updateRespond, testRunState,
            record, link, linkSet, linkShow, linkSchedule, app, complication, failNext, workoutFault,
            osStatus, osJetsam, osAttachApp, deviceLock, deviceReboot, switchWatch, receiveHold,
        ] + declared.map { $0.spec }

    /// The commands declared as types (`ControlCommand`), family by family: each family's list is in its
    /// own file, beside its types (`Sources/Control/Commands`), so a command joining a family is named
    /// there, not here; only a new family adds a line here.
    package static let declared: [any ControlCommand.Type] = inspectionCommands + faultCapCommands + appSettingsCommands + osServiceCommands

    /// The OS services' calls, service by service (`Sources/Control/Commands/OS*Requests.swift`): each an
    /// `OSRequest` too, which the OS answers (`SystemServices.requests`); a new service adds its list here.
    package static let osServiceCommands: [any ControlCommand.Type] = ClockRequest.commands + NotificationRequest.commands + HealthRequest.commands

    // MARK: - The session's generic API (WCSession), on both devices

    static let payloadErrors: [ControlErrorSpec] = [
        .wc(.payloadUnsupportedTypes, "the payload holds a null, or a value a property list cannot"),
        .wc(.deviceNotPaired, "no counterpart is paired"),
        .wc(.watchAppNotInstalled, "the watch app is not installed (on the phone)"),
    ]

    package static let transferUserInfo = ControlCommandSpec(
        "transfer-userinfo", both, session: true, arguments: [Payload.payload], reply: TransferUserInfoReply.self,
        errors: payloadErrors + [.wc(.payloadTooLarge, "the payload encodes to more than 65,536 bytes")], "queue a userInfo transfer")
    package static let transferComplication = ControlCommandSpec(
        "transfer-complication", [.phone], session: true, arguments: [Payload.payload], reply: TransferComplicationReply.self,
        errors: payloadErrors + [.wc(.payloadTooLarge, "the payload encodes to more than 65,536 bytes")],
        "queue complication data for the watch (transferCurrentComplicationUserInfo): ahead of queued userInfo while today's 50 last, else as a userInfo")
    package static let transferFile = ControlCommandSpec(
        "transfer-file", both, session: true, arguments: [TransferFile.path, TransferFile.metadata], reply: TransferFileReply.self,
        errors: [
            .wc(.fileAccessDenied, "the file is missing, unreadable or not a regular file"),
            .wc(.payloadTooLarge, "the file is over 1 GiB, or its metadata encodes to more than 65,536 bytes"),
            .wc(.payloadUnsupportedTypes, "the metadata holds a null, or a value a property list cannot"),
            .wc(.insufficientSpace, "no space to copy it into the queue"),
            .wc(.deviceNotPaired, "no counterpart is paired"),
            .wc(.watchAppNotInstalled, "the watch app is not installed (on the phone)"),
        ], "queue a file for the counterpart (transferFile): copied into the queue, sent in chunks, resumed after anything")
    package static let contextSet = ControlCommandSpec(
        "context-set", both, session: true, arguments: [Payload.payload], reply: ContextSetReply.self,
        errors: payloadErrors + [.wc(.payloadTooLarge, "the context encodes to more than 262,144 bytes")], "update the application context")
    package static let message = ControlCommandSpec(
        "message", both, session: true, arguments: [Payload.payload, Message.timeoutMs, Message.replyExpected], reply: MessageReply.self,
        errors: payloadErrors + [
            .wc(.payloadTooLarge, "the message encodes to more than 65,536 bytes"),
            .wc(.notReachable, "the counterpart is not reachable"),
            .wc(.messageReplyTimedOut, "no reply came in time"),
            .wc(.deliveryFailed, "without a reply handler: the delivery was not confirmed in time"),
        ], "send a message and wait for its reply, or only for its delivery")
    package static let messageData = ControlCommandSpec(
        "message-data", both, session: true, arguments: [MessageData.data, Message.timeoutMs, Message.replyExpected], reply: MessageDataReply.self,
        errors: [
            .wc(.deviceNotPaired, "no counterpart is paired"),
            .wc(.watchAppNotInstalled, "the watch app is not installed (on the phone)"),
            .wc(.payloadTooLarge, "the data is more than 65,536 bytes"),
            .wc(.notReachable, "the counterpart is not reachable"),
            .wc(.messageReplyTimedOut, "no reply came in time"),
            .wc(.deliveryFailed, "without a reply handler: the delivery was not confirmed in time"),
        ], "send a data message (sendMessageData) and wait for its reply's bytes, or only for its delivery")
    package static let cancel = ControlCommandSpec(
        "cancel", both, session: true, arguments: [Cancel.transferId], reply: CancelReply.self,
        errors: [
            .failure("reason delivered: the counterpart has it"), .failure("reason onTheWire: sent, not yet acknowledged"),
            .invalid("reason unknown: no transfer ever had that id"),
        ], "cancel an outstanding transfer not yet on its way (one already cancelled: alreadyCancelled true)")
    package static let quarantineRemove = ControlCommandSpec(
        "quarantine-remove", both, arguments: [QuarantineRemove.id, QuarantineRemove.all], reply: QuarantineRemoveReply.self,
        errors: [.invalid("neither id nor all"), .failure("no quarantined transfer has that id")], "remove a quarantined transfer, or all of them")
    package static let events = ControlCommandSpec(
        "events", both, arguments: [Events.limit, Events.follow], errors: [.invalid("the connection already receives events")],
        "the session's delegate calls: the recent ones and, with follow, each as it happens")

    // MARK: - Every device

    package static let status = ControlCommandSpec(
        "status", os, reply: StatusReply.self, "the device's state: session, link, store, versions (phone-os: what the OS knows while the app is not running)")
    package static let runStart = ControlCommandSpec(
        "run-start", both, arguments: RunStart.target, reply: RunStatusReply.self,
        errors: [.invalid("zoneLow is not below zoneHigh, or only one is given"), .failure("a run is in progress, or the device cannot start one")],
        "start a live run")
    package static let runSample = ControlCommandSpec(
        "run-sample", both, arguments: [RunSample.samples], reply: RunStatusReply.self,
        errors: [.invalid("a sample is malformed or breaks the run's order: the batch is refused whole"), .failure("no run in progress")],
        "feed the live run samples")
    package static let runStatus = ControlCommandSpec("run-status", both, reply: RunStatusReply.self, "the live run")
    package static let runStop = ControlCommandSpec(
        "run-stop", both, reply: RunStopReply.self, errors: [.failure("no run in progress")], "stop the live run, saving it as a flight")
    package static let runReplay = ControlCommandSpec(
        "run-replay", both, arguments: RunStart.target + [RunReplay.seed, RunReplay.distanceKm], reply: RunStopReply.self,
        errors: [.failure("a run is in progress, or the device cannot start one")], "replay a generated run")

    // MARK: - The phone

    package static let logbook = ControlCommandSpec("logbook", [.phone], "every stored flight, streamed")
    package static let flight = ControlCommandSpec(
        "flight", [.phone], arguments: [Flight.id], errors: [.failure("no flight has that id")], "one flight with its analysis")
    package static let delete = ControlCommandSpec(
        "delete", [.phone], arguments: [Flight.id], reply: DeleteReply.self, errors: [.failure("no flight has that id")], "delete a flight")
    package static let attach = ControlCommandSpec("attach", [.phone], reply: AttachReply.self, "become the app's UI: events until the connection closes")
    package static let preflight = ControlCommandSpec(
        "preflight", [.phone], arguments: [Preflight.legacy], reply: PreflightReply.self, "the pre-flight Apple Watch row")
    package static let reminders = ControlCommandSpec("reminders", [.phone], reply: RemindersReply.self, "the run reminders")
    package static let remindersReschedule = ControlCommandSpec(
        "reminders-reschedule", [.phone], reply: RemindersReply.self, "reschedule the run reminders, as opening the app does")
    package static let alerts = ControlCommandSpec("alerts", [.phone], "the alerts of every flight")
    package static let groups = ControlCommandSpec("groups", [.phone], arguments: [Groups.view], reply: GroupsReply.self, "the remembered groups of a view")
    package static let groupSet = ControlCommandSpec(
        "group-set", [.phone], arguments: [Groups.view, GroupSet.key, GroupSet.expanded], reply: GroupSetReply.self, "open or close a month's group")
    package static let groupsReset = ControlCommandSpec(
        "groups-reset", [.phone], arguments: [Groups.view], reply: GroupsResetReply.self, "the groups' defaults again")
    package static let appstoreSet = ControlCommandSpec(
        "appstore-set", [.phone], arguments: [AppstoreSet.version, AppstoreSet.url, AppstoreSet.body, Appstore.delayMs],
        reply: AppStoreReply.self, errors: [.invalid("neither version nor body, or a version that is not N(.N){0,3}")], "the simulated App Store's answer")
    package static let appstoreFail = ControlCommandSpec(
        "appstore-fail", [.phone], arguments: [Appstore.delayMs], reply: AppStoreReply.self, "make the App Store lookup fail")
    package static let appstoreShow = ControlCommandSpec("appstore-show", [.phone], reply: AppStoreReply.self, "the simulated App Store")
    package static let updateCheck = ControlCommandSpec("update-check", [.phone], reply: UpdateCheckReply.self, "look for a newer version now")
    package static let updateStatus = ControlCommandSpec("update-status", [.phone], reply: UpdateStatusReply.self, "the update notice")
    package static let updateRespond = ControlCommandSpec(
        "update-respond", [.phone], arguments: [UpdateRespond.answer], reply: UpdateRespondReply.self, errors: [.failure("no update alert is showing")],
        "answer the update alert")
    package static let testRunState = ControlCommandSpec(
        "test-run-state", [.phone], test: true, arguments: [TestRunState.running], reply: TestRunStateReply.self, "pretend a run is in progress")

    // MARK: - The watch

    package static let record = ControlCommandSpec(
        "record", [.watch], arguments: [Record.count, Record.distanceKm, Record.seed, Record.seriesTotal, Record.seriesStart, Record.endingAt],
        reply: RecordReply.self,
        errors: [.invalid("seriesTotal below count, or seriesStart past seriesTotal - count"), .failure("the watch app is not installed")],
        "record runs and queue them for the phone")
    package static let link = ControlCommandSpec(
        "link", [.watch, .watchOS], arguments: [Link.state], reply: LinkReply.self,
        errors: [.failure("watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)")],
        "cut or restore the link to the phone (under watch-os, kept while the app sleeps and across its launches)")
    package static let linkSet = ControlCommandSpec(
        "link-set", [.watch, .watchOS],
        arguments: [LinkSet.latency, LinkSet.jitter, LinkSet.loss, LinkSet.bandwidth, LinkSet.range, LinkSet.reset, LinkSet.seed],
        reply: LinkConditionsReply.self,
        errors: [
            .failure("the conditions could not be saved in the watch's home (nothing changed)"),
            .failure("watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)"),
        ],
        "set the link's conditions: latency, jitter, loss, bandwidth, range (what is not named stays; a schedule running stops)")
    package static let linkShow = ControlCommandSpec(
        "link-show", [.watch, .watchOS], reply: LinkConditionsReply.self, "the link's conditions, what the air has done, the schedule running")
    package static let linkSchedule = ControlCommandSpec(
        "link-schedule", [.watch, .watchOS], arguments: [LinkScheduleArguments.steps, LinkScheduleArguments.seed], reply: LinkConditionsReply.self,
        errors: [
            .invalid("a step is malformed, out of range or out of order (docs/link-conditions.md)"),
            .failure("watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)"),
        ],
        "play a timeline of link conditions, from now, with seeded draws (replaces a schedule running)")
    package static let app = ControlCommandSpec(
        "app", [.watch, .phoneOS, .watchOS], on: [.watch: [App.watchAction], .phoneOS: [App.osAction, App.version], .watchOS: [App.watchOSAction]],
        replies: [.watch: WatchAppReply.self, .phoneOS: OSStatusReply.self, .watchOS: OSStatusReply.self],
        errors: [
            .failure("the app's state does not allow it (foreground while not installed; close, suspend or resume from the wrong state)"),
            .failure("phone-os: open while the app is not installed, or the phone not unlocked since it restarted"),
            .failure("phone-os: install of a version older than the one installed (a downgrade, which iOS refuses)"),
            .invalid("phone-os: a version that is not N(.N){0,3}, or a version with another action"),
            .failure("watch-os: open while the watch app is not installed, or uninstall of an app that is not"),
        ],
        "the app's state: install, uninstall, foreground, background (watch); open, close, force-quit, suspend, resume, install, uninstall (phone-os and watch-os)"
    )
    package static let complication = ControlCommandSpec(
        "complication", [.watch, .watchOS], arguments: [Complication.state], reply: ComplicationReply.self,
        errors: [
            .failure("watch-os: the watch app is not installed"),
            .failure("watch-os, once it has launched the watch app: its session holds it (reason appHoldsTheLink; the CLI asks the app)"),
        ],
        "put the app's complication on the active watch face, or take it off (the phone's isComplicationEnabled)")
    package static let failNext = ControlCommandSpec(
        "fail-next", [.watch], test: true, arguments: [FailNext.count, FailNext.code], reply: FailNextReply.self,
        "the next N userInfo transfers fail with an error")
    package static let workoutFault = ControlCommandSpec(
        "workout-fault", [.watch], test: true, arguments: [WorkoutFault.mode], reply: WorkoutFaultReply.self, "make the watch refuse or ignore a workout start")

    // MARK: - Several watches

    package static let switchWatch = ControlCommandSpec(
        "switch-watch", [.phone, .phoneOS], arguments: [SwitchWatch.watch],
        reply: SwitchWatchReply.self,
        errors: [
            .invalid("no watch by that device id or home is paired with this phone (7005 deviceNotPaired)"),
            .failure("a switch is already under way (7016 sessionInactive); phone-os: the app is suspended or starting"),
        ],
        "make a paired watch the active one: the session goes inactive, delivers what the old watch sent, then deactivates; the app activates again")
    package static let receiveHold = ControlCommandSpec(
        "receive-hold", both, test: true, arguments: [ReceiveHold.state], reply: ReceiveHoldReply.self,
        "stop or resume reading the link, so that what the counterpart sends waits in the socket (a watch switch then delivers it)")

    // MARK: - phone-os

    package static let osStatus = ControlCommandSpec(
        "os-status", [.phoneOS, .watchOS], reply: OSStatusReply.self, "the app's state, launches by reason, reclaims, the budget")
    package static let osAttachApp = ControlCommandSpec(
        "os-attach-app", [.phoneOS, .watchOS], reply: OSClockEvent.self,
        "the running app's connection to its OS: the clock now, then its changes and each delivered notification")
    package static let deviceLock = ControlCommandSpec(
        "device-lock", [.phoneOS], arguments: [DeviceLock.state], reply: OSStatusReply.self,
        "lock or unlock the phone; the first unlock after a restart makes it reachable again")
    package static let deviceReboot = ControlCommandSpec(
        "device-reboot", [.phoneOS], reply: OSStatusReply.self,
        "restart the phone: the app stops, the phone is locked and unreachable to the watch until it is unlocked")
    package static let osJetsam = ControlCommandSpec(
        "os-jetsam", [.phoneOS, .watchOS], reply: OSStatusReply.self, errors: [.failure("the app is not running")],
        "kill the app at once, as memory pressure does")
}
