import JSONText

// MARK: - Live runs (`run-start`, `run-sample`, `run-status`, `run-stop`, `run-replay`)

/// `run-start`, `run-sample`, `run-status`: the run in progress (`state` running, with its figures) or
/// none (`idle`: only `startOrigin`, null). `run-sample` adds the decisions on its samples (`trace`); the
/// phone adds what it knows of the watch's mirrored workout (`mirroring`).
public struct RunStatusReply: ControlReply {
    /// `running` or `idle`.
    public var state: String
    public var runId: String?
    /// ISO 8601.
    public var startedAt: String?
    /// `pace` or `heartRate`.
    public var mode: String?
    /// `6:00` or `140-160`.
    public var target: String?
    public var gpwsBehaviour: String?
    public var elapsedSeconds: Double?
    public var distanceKm: Double?
    public var pace: Double?
    public var heartRate: Double?
    public var stationary: Bool?
    public var samples: Int64?
    /// The GPWS status now: `CLEAR`, `SINK RATE` or `OVERSPEED`.
    public var gpws: String?
    public var alerts: Int64?
    /// `local` or `remote`; null while idle.
    @NullIfNil public var startOrigin: String?
    public var mirroring: RunMirroring?
    public var trace: [RunDecision]?

    /// No run in progress.
    public static var idle: RunStatusReply { RunStatusReply(state: "idle") }

    public init(state: String) {
        self.state = state
        self.startOrigin = nil
    }
}

/// The phone's view of the watch's mirrored workout: whether it asked, what RunWay assumed
/// (`assumedStarted`) and what happened (`state`: notRequested, requested, confirmed, failed, unconfirmed).
public struct RunMirroring: Codable, Sendable, Equatable {
    public var requested: Bool
    public var assumedStarted: Bool
    public var state: String
    /// ISO 8601.
    public var confirmedAt: String?
    public var failureReason: String?

    public init(requested: Bool, assumedStarted: Bool, state: String, confirmedAt: String? = nil, failureReason: String? = nil) {
        self.requested = requested
        self.assumedStarted = assumedStarted
        self.state = state
        self.confirmedAt = confirmedAt
        self.failureReason = failureReason
    }
}

/// GPWS's decision on one sample: `{"t":600,"pace":0,"hr":120,"stationary":true,"decided":false,"gpws":"CLEAR","alert":null}`.
public struct RunDecision: Codable, Sendable, Equatable {
    public var t: Double
    public var pace: Double
    public var hr: Double
    public var stationary: Bool
    public var decided: Bool
    public var gpws: String
    @NullIfNil public var alert: String?

    public init(t: Double, pace: Double, hr: Double, stationary: Bool, decided: Bool, gpws: String, alert: String?) {
        self.t = t
        self.pace = pace
        self.hr = hr
        self.stationary = stationary
        self.decided = decided
        self.gpws = gpws
        self.alert = alert
    }
}

/// `run-stop`, `run-replay`: the flight the run made. The watch says what became of it — queued
/// (`transfer`, the outbox transfer that carries it) or, for a run the phone led, not (`transferred`
/// false); the phone whether it saved it (`saved`: `saved`, `tooShort`, …). `run-replay` adds the trace.
public struct RunStopReply: ControlReply {
    public var id: String
    public var distanceKm: Double
    public var durationSeconds: Double
    public var alerts: Int64
    /// `local` or `remote`.
    public var startOrigin: String
    public var transfer: Int64?
    public var transferred: Bool?
    public var saved: String?
    public var trace: [RunDecision]?

    public init(id: String, distanceKm: Double, durationSeconds: Double, alerts: Int64, startOrigin: String) {
        self.id = id
        self.distanceKm = distanceKm
        self.durationSeconds = durationSeconds
        self.alerts = alerts
        self.startOrigin = startOrigin
    }
}
