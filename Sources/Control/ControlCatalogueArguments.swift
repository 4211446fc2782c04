import Connectivity
import JSONText

// MARK: - Every command's arguments, each declared once

/// The arguments of the catalogue's commands, one namespace per command (or group of commands that
/// share them). The handler reads `request[ControlCommands.Record.count]`; the CLI sets it the same way.
extension ControlCommands {
    /// The largest string a request can carry: the control socket's frame.
    static let textBytes = ControlClient.frameLimit

    package enum Payload {
        package static let payload = ControlArgument<JSONValue>("payload", .object, required: true, "the dictionary, in typed JSON")
    }
    package enum Message {
        package static let timeoutMs = ControlArgument<Int?>(
            "timeoutMs", .int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)")
        package static let replyExpected = ControlArgument<Bool>(
            "replyExpected", .bool, default: true, "false: send it without a reply handler and wait only for its delivery")
    }
    package enum TransferFile {
        package static let path = ControlArgument<String>("path", .string(bytes: 1...4096), required: true, "the file, an absolute path")
        package static let metadata = ControlArgument<JSONValue?>("metadata", .object, "the file's metadata, in typed JSON")
    }
    package enum MessageData {
        package static let data = ControlArgument<String>("data", .format(.base64), required: true, "the message's bytes, in base64")
    }
    package enum Cancel {
        package static let transferId = ControlArgument<Int>("transferId", .int(1...Int.max), required: true, "the transfer's id")
    }
    package enum QuarantineRemove {
        package static let id = ControlArgument<Int?>("id", .int(1...Int.max), "the quarantined transfer's id")
        package static let all = ControlArgument<Bool>("all", .bool, default: false, "remove every quarantined transfer")
    }
    package enum Events {
        package static let limit = ControlArgument<Int>(
            "limit", .int(0...DelegateTrace.defaultCapacity), default: 100, "how many recent calls to answer with")
        package static let follow = ControlArgument<Bool>("follow", .bool, default: false, "then send each new call as an event frame")
    }
    /// `run-start`'s target, which `run-replay` takes too (`GPWSTarget`'s ranges; a test checks they agree).
    package enum RunStart {
        package static let mode = ControlArgument<String>(
            "mode", .choice(["pace", "heart-rate", "heartRate"]), default: "pace", "what the run flies to")
        package static let targetPace = ControlArgument<Double?>("targetPace", .number(120...1200), "the target pace, seconds per km (default 360)")
        package static let zoneLow = ControlArgument<Double?>("zoneLow", .number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)")
        package static let zoneHigh = ControlArgument<Double?>("zoneHigh", .number(40...220), "the heart-rate zone's top, bpm (with zoneLow)")
        static let target: [any ControlArgumentDeclaration] = [mode, targetPace, zoneLow, zoneHigh]
    }
    package enum RunSample {
        package static let samples = ControlArgument<JSONValue>("samples", .array, required: true, "[[t, distanceM, paceSecPerKm, hr], …]")
    }
    package enum RunReplay {
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        package static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0.2...100), "the run's distance (default random 3-12)")
    }
    package enum Flight {
        package static let id = ControlArgument<String>("id", .format(.flightID), required: true, "the flight's id")
    }
    package enum Preflight {
        package static let legacy = ControlArgument<Bool>("legacy", .bool, default: false, "RunWay 1.3.1's row (reachability)")
    }
    package enum Groups {
        package static let view = ControlArgument<String>("view", .choice(["logbook", "alerts"]), required: true, "the grouped view")
    }
    package enum GroupSet {
        package static let key = ControlArgument<String>("key", .format(.month), required: true, "the month's group")
        package static let expanded = ControlArgument<Bool>("expanded", .bool, required: true, "open (true) or closed (false)")
    }
    package enum Appstore {
        package static let delayMs = ControlArgument<Int>("delayMs", .int(0...600_000), default: 0, "the answer comes this many ms after the lookup")
    }
    package enum AppstoreSet {
        package static let version = ControlArgument<String?>("version", .string(bytes: 1...textBytes), "the store's version, N(.N){0,3}")
        package static let url = ControlArgument<String?>("url", .string(bytes: 0...textBytes), "the trackViewUrl, verbatim (with version)")
        package static let body = ControlArgument<String?>("body", .string(bytes: 0...textBytes), "the answer's raw text, instead of version")
    }
    package enum UpdateRespond {
        package static let answer = ControlArgument<String>("answer", .choice(["update", "later"]), required: true, "the button")
    }
    package enum TestRunState {
        package static let running = ControlArgument<Bool>("running", .bool, default: false, "whether a run is in progress")
    }
    /// `record`'s; `FlightLimits`' time range for `endingAt` (a test checks they agree).
    package enum Record {
        package static let count = ControlArgument<Int>("count", .int(1...1_000_000), default: 1, "how many runs")
        package static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0...1000), "each run's distance (default random 3-12)")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        package static let seriesTotal = ControlArgument<Int?>(
            "seriesTotal", .int(1...1_000_000), "the whole series' length, when this is a chunk of it (at least count)")
        package static let seriesStart = ControlArgument<Int?>(
            "seriesStart", .int(0...999_999), "where this chunk starts in the series (at most seriesTotal - count)")
        package static let endingAt = ControlArgument<Double?>(
            "endingAt", .number(978_307_200...4_102_444_800), "the newest run ends here, seconds since 1970 (default: the device clock)")
        /// How many runs `runway watch record` asks for in one request: more are recorded a chunk at a
        /// time, each chunk one transaction (bounded memory on both sides).
        package static let chunk = 10_000
    }
    package enum Link {
        package static let state = ControlArgument<String>("state", .choice(["up", "down"]), required: true, "the link's state")
    }
    /// `link-set`'s: `LinkConditions`' own ranges.
    package enum LinkSet {
        package static let latency = ControlArgument<Int?>("latencyMs", .int(LinkConditions.latencyRange), "each frame's latency, each way, in ms")
        package static let jitter = ControlArgument<Int?>("jitterMs", .int(LinkConditions.jitterRange), "the latency varies by up to this, either way, in ms")
        package static let loss = ControlArgument<Double?>(
            "loss", .number(LinkConditions.lossRange), "the chance a frame is lost (the link is cut and reconnects)")
        package static let bandwidth = ControlArgument<Int?>(
            "bandwidthKbps", .int(LinkConditions.bandwidthRange), "the capacity each way, kbit/s (0: unlimited)")
        package static let range = ControlArgument<String?>("range", .choice(["near", "wifi", "out"]), "near (Bluetooth), wifi (the relay), out")
        package static let reset = ControlArgument<Bool>("reset", .bool, default: false, "start from clear air (what is not named is cleared)")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss")
    }
    /// `link-schedule`'s: the steps as `LinkSchedule.parse` reads them.
    package enum LinkScheduleArguments {
        package static let steps = ControlArgument<JSONValue>(
            "steps", .array, required: true, "[{at, latencyMs?, jitterMs?, loss?, bandwidthKbps?, range?, reset?}, …]")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss (default: random, in the reply)")
    }
    package enum App {
        package static let watchAction = ControlArgument<String>(
            "action", .choice(["install", "uninstall", "foreground", "background"]), required: true, "what happens to the watch app")
        package static let osAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the phone app")
        package static let watchOSAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the watch app (watch-os)")
        package static let version = ControlArgument<String?>(
            "version", .string(bytes: 1...39), "install: the version, N(.N){0,3} (default: the one installed, or the app's own)")
    }
    package enum SwitchWatch {
        package static let watch = ControlArgument<String>(
            "watch", .string(bytes: 1...4096), required: true, "the watch to make active: its device id, or its home as runway pair was given it")
    }
    package enum ReceiveHold {
        package static let state = ControlArgument<String>(
            "state", .choice(["on", "off"]), required: true, "on: stop reading the link (what the counterpart sends waits in the socket); off: read again")
    }
    package enum DeviceLock {
        package static let state = ControlArgument<String>("state", .choice(["lock", "unlock"]), required: true, "lock or unlock the phone")
    }
    package enum Complication {
        package static let state = ControlArgument<String>("state", .choice(["on", "off"]), required: true, "on the watch face, or off it")
    }
    package enum FailNext {
        package static let count = ControlArgument<Int>("count", .int(0...1_000_000), required: true, "how many transfers fail; 0 clears it")
        package static let code = ControlArgument<Int>(
            "code", .intChoice([7017, 7014, 7015]), default: 7017, "the WCError: transferTimedOut, deliveryFailed or insufficientSpace")
    }
    package enum WorkoutFault {
        package static let mode = ControlArgument<String>(
            "mode", .choice(["refuse", "ignore", "none"]), required: true, "how the next startWorkout is answered")
    }
}
