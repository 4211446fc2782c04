import Connectivity
import JSONText

// MARK: - Every command's arguments, each declared once

/// The arguments of the catalogue's commands, one namespace per command (or group of commands that
/// share them). The handler reads `request[ControlCommands.Record.count]`; the CLI sets it the same way.
extension ControlCommands {
    /// The largest string a request can carry: the control socket's frame.
    static let textBytes = ControlClient.frameLimit

    public enum Payload {
        public static let payload = ControlArgument<JSONValue>("payload", .object, required: true, "the dictionary, in typed JSON")
    }
    public enum Received {
        public static let limit = ControlArgument<Int>("limit", .int(1...1_000_000), default: 100_000, "list at most this many")
    }
    public enum Message {
        public static let timeoutMs = ControlArgument<Int?>(
            "timeoutMs", .int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)")
        public static let replyExpected = ControlArgument<Bool>(
            "replyExpected", .bool, default: true, "false: send it without a reply handler and wait only for its delivery")
    }
    public enum TransferFile {
        public static let path = ControlArgument<String>("path", .string(bytes: 1...4096), required: true, "the file, an absolute path")
        public static let metadata = ControlArgument<JSONValue?>("metadata", .object, "the file's metadata, in typed JSON")
    }
    public enum Files {
        public static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 1000, "list at most this many of each")
    }
    public enum InboxSpaceLimit {
        public static let bytes = ControlArgument<Int>("bytes", .int(0...Int.max), required: true, "the cap in bytes; 0 lifts it")
    }
    public enum MessageData {
        public static let data = ControlArgument<String>("data", .format(.base64), required: true, "the message's bytes, in base64")
    }
    public enum Transfers {
        public static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 100, "list at most this many")
    }
    public enum Cancel {
        public static let transferId = ControlArgument<Int>("transferId", .int(1...Int.max), required: true, "the transfer's id")
    }
    public enum Quarantine {
        public static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 100, "list at most this many")
    }
    public enum QuarantineRemove {
        public static let id = ControlArgument<Int?>("id", .int(1...Int.max), "the quarantined transfer's id")
        public static let all = ControlArgument<Bool>("all", .bool, default: false, "remove every quarantined transfer")
    }
    public enum Events {
        public static let limit = ControlArgument<Int>(
            "limit", .int(0...DelegateTrace.defaultCapacity), default: 100, "how many recent calls to answer with")
        public static let follow = ControlArgument<Bool>("follow", .bool, default: false, "then send each new call as an event frame")
    }
    public enum ClockSet {
        public static let at = ControlArgument<Double>("at", .number(-1e12...1e12), required: true, "the time, in seconds since 1970")
        public static let frozen = ControlArgument<Bool>("frozen", .bool, default: false, "stop the clock there")
    }
    public enum ClockAdvance {
        public static let seconds = ControlArgument<Double>("seconds", .number(-1e12...1e12), required: true, "how far, in seconds")
    }
    /// `run-start`'s target, which `run-replay` takes too (`GPWSTarget`'s ranges; a test checks they agree).
    public enum RunStart {
        public static let mode = ControlArgument<String>(
            "mode", .choice(["pace", "heart-rate", "heartRate"]), default: "pace", "what the run flies to")
        public static let targetPace = ControlArgument<Double?>("targetPace", .number(120...1200), "the target pace, seconds per km (default 360)")
        public static let zoneLow = ControlArgument<Double?>("zoneLow", .number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)")
        public static let zoneHigh = ControlArgument<Double?>("zoneHigh", .number(40...220), "the heart-rate zone's top, bpm (with zoneLow)")
        static let target: [any ControlArgumentDeclaration] = [mode, targetPace, zoneLow, zoneHigh]
    }
    public enum RunSample {
        public static let samples = ControlArgument<JSONValue>("samples", .array, required: true, "[[t, distanceM, paceSecPerKm, hr], …]")
    }
    public enum RunReplay {
        public static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        public static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0.2...100), "the run's distance (default random 3-12)")
    }
    public enum StoreLimit {
        public static let pages = ControlArgument<Int>("pages", .int(0...Int(Int32.max)), required: true, "the cap in pages; 0 lifts it")
    }
    public enum Flight {
        public static let id = ControlArgument<String>("id", .format(.flightID), required: true, "the flight's id")
    }
    public enum Preflight {
        public static let legacy = ControlArgument<Bool>("legacy", .bool, default: false, "RunWay 1.3.1's row (reachability)")
    }
    public enum LanguageSet {
        public static let language = ControlArgument<String>(
            "language", .choice(["ko", "en", "ja", "system"]), required: true, "the app's language, or system to follow the system's")
    }
    public enum OSNotifications {
        public static let remove = ControlArgument<JSONValue?>("remove", .array, "ids of pending requests to remove")
        public static let add = ControlArgument<JSONValue?>("add", .array, "[{id, fireAt (seconds since 1970), title, body, language}, …]")
        public static let ids = ControlArgument<JSONValue?>("ids", .array, "the ids to forget (default: all)")
    }
    public enum OSHealth {
        public static let workout = ControlArgument<JSONValue?>(
            "workout", .object, "{uuid, activityType, startDate, endDate, duration (seconds), metadata {key: string}}")
        public static let share = ControlArgument<JSONValue?>("share", .array, "the type identifiers to share")
        public static let read = ControlArgument<JSONValue?>("read", .array, "the type identifiers to read")
        public static let session = ControlArgument<JSONValue?>("session", .object, "{activityType, locationType, startDate}; left out: none runs")
    }
    public enum NotificationAdd {
        public static let id = ControlArgument<String>("id", .string(bytes: 1...200), required: true, "the notification's id")
        public static let inSeconds = ControlArgument<Double>(
            "inSeconds", .number(-1e10...1e10), required: true, "it fires this many seconds of device time from now")
        public static let body = ControlArgument<String?>("body", .string(bytes: 0...textBytes), "its text (default: the id)")
    }
    public enum Groups {
        public static let view = ControlArgument<String>("view", .choice(["logbook", "alerts"]), required: true, "the grouped view")
    }
    public enum GroupSet {
        public static let key = ControlArgument<String>("key", .format(.month), required: true, "the month's group")
        public static let expanded = ControlArgument<Bool>("expanded", .bool, required: true, "open (true) or closed (false)")
    }
    public enum Appstore {
        public static let delayMs = ControlArgument<Int>("delayMs", .int(0...600_000), default: 0, "the answer comes this many ms after the lookup")
    }
    public enum AppstoreSet {
        public static let version = ControlArgument<String?>("version", .string(bytes: 1...textBytes), "the store's version, N(.N){0,3}")
        public static let url = ControlArgument<String?>("url", .string(bytes: 0...textBytes), "the trackViewUrl, verbatim (with version)")
        public static let body = ControlArgument<String?>("body", .string(bytes: 0...textBytes), "the answer's raw text, instead of version")
    }
    public enum UpdateRespond {
        public static let answer = ControlArgument<String>("answer", .choice(["update", "later"]), required: true, "the button")
    }
    public enum TestRunState {
        public static let running = ControlArgument<Bool>("running", .bool, default: false, "whether a run is in progress")
    }
    /// `record`'s; `FlightLimits`' time range for `endingAt` (a test checks they agree).
    public enum Record {
        public static let count = ControlArgument<Int>("count", .int(1...1_000_000), default: 1, "how many runs")
        public static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0...1000), "each run's distance (default random 3-12)")
        public static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        public static let seriesTotal = ControlArgument<Int?>(
            "seriesTotal", .int(1...1_000_000), "the whole series' length, when this is a chunk of it (at least count)")
        public static let seriesStart = ControlArgument<Int?>(
            "seriesStart", .int(0...999_999), "where this chunk starts in the series (at most seriesTotal - count)")
        public static let endingAt = ControlArgument<Double?>(
            "endingAt", .number(978_307_200...4_102_444_800), "the newest run ends here, seconds since 1970 (default: the device clock)")
        /// How many runs `runway watch record` asks for in one request: more are recorded a chunk at a
        /// time, each chunk one transaction (bounded memory on both sides).
        public static let chunk = 10_000
    }
    public enum Link {
        public static let state = ControlArgument<String>("state", .choice(["up", "down"]), required: true, "the link's state")
    }
    /// `link-set`'s: `LinkConditions`' own ranges.
    public enum LinkSet {
        public static let latency = ControlArgument<Int?>("latencyMs", .int(LinkConditions.latencyRange), "each frame's latency, each way, in ms")
        public static let jitter = ControlArgument<Int?>("jitterMs", .int(LinkConditions.jitterRange), "the latency varies by up to this, either way, in ms")
        public static let loss = ControlArgument<Double?>(
            "loss", .number(LinkConditions.lossRange), "the chance a frame is lost (the link is cut and reconnects)")
        public static let bandwidth = ControlArgument<Int?>(
            "bandwidthKbps", .int(LinkConditions.bandwidthRange), "the capacity each way, kbit/s (0: unlimited)")
        public static let range = ControlArgument<String?>("range", .choice(["near", "wifi", "out"]), "near (Bluetooth), wifi (the relay), out")
        public static let reset = ControlArgument<Bool>("reset", .bool, default: false, "start from clear air (what is not named is cleared)")
        public static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss")
    }
    /// `link-schedule`'s: the steps as `LinkSchedule.parse` reads them.
    public enum LinkScheduleArguments {
        public static let steps = ControlArgument<JSONValue>(
            "steps", .array, required: true, "[{at, latencyMs?, jitterMs?, loss?, bandwidthKbps?, range?, reset?}, …]")
        public static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss (default: random, in the reply)")
    }
    public enum App {
        public static let watchAction = ControlArgument<String>(
            "action", .choice(["install", "uninstall", "foreground", "background"]), required: true, "what happens to the watch app")
        public static let osAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the phone app")
        public static let watchOSAction = ControlArgument<String>(
            "action", .choice(["open", "close", "force-quit", "suspend", "resume", "install", "uninstall"]), required: true,
            "what happens to the watch app (watch-os)")
        public static let version = ControlArgument<String?>(
            "version", .string(bytes: 1...39), "install: the version, N(.N){0,3} (default: the one installed, or the app's own)")
    }
    public enum SwitchWatch {
        public static let watch = ControlArgument<String>(
            "watch", .string(bytes: 1...4096), required: true, "the watch to make active: its device id, or its home as runway pair was given it")
    }
    public enum ReceiveHold {
        public static let state = ControlArgument<String>(
            "state", .choice(["on", "off"]), required: true, "on: stop reading the link (what the counterpart sends waits in the socket); off: read again")
    }
    public enum DeviceLock {
        public static let state = ControlArgument<String>("state", .choice(["lock", "unlock"]), required: true, "lock or unlock the phone")
    }
    public enum Complication {
        public static let state = ControlArgument<String>("state", .choice(["on", "off"]), required: true, "on the watch face, or off it")
    }
    public enum FailNext {
        public static let count = ControlArgument<Int>("count", .int(0...1_000_000), required: true, "how many transfers fail; 0 clears it")
        public static let code = ControlArgument<Int>(
            "code", .intChoice([7017, 7014, 7015]), default: 7017, "the WCError: transferTimedOut, deliveryFailed or insufficientSpace")
    }
    public enum WorkoutFault {
        public static let mode = ControlArgument<String>(
            "mode", .choice(["refuse", "ignore", "none"]), required: true, "how the next startWorkout is answered")
    }
}
