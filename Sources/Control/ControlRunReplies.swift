import JSONText

// MARK: - Live runs (`run-start`, `run-sample`, `run-status`, `run-stop`, `run-replay`)

/// `run-start`, `run-sample`, `run-status`: the run in progress (`state` running, with its figures) or
/// none (`idle`: only `startOrigin`, null). `run-sample` adds the decisions on its samples (`trace`); the
/// phone adds what it knows of the watch's mirrored workout (`mirroring`).
package struct RunStatusReply: ControlReply {
    /// `running` or `idle`.
    package var state: String
    package var runId: String?
    /// ISO 8601.
    package var startedAt: String?
    /// `pace` or `heartRate`.
    package var mode: String?
    /// `6:00` or `140-160`.
    package var target: String?
    package var gpwsBehaviour: String?
    package var elapsedSeconds: Double?
    package var distanceKm: Double?
    package var pace: Double?
    package var heartRate: Double?
    package var stationary: Bool?
    package var samples: Int64?
    /// The GPWS status now: `CLEAR`, `SINK RATE` or `OVERSPEED`.
    package var gpws: String?
    package var alerts: Int64?
    /// `local` or `remote`; null while idle.
    @NullIfNil package var startOrigin: String?
    package var mirroring: RunMirroring?
    package var trace: [RunDecision]?

    /// No run in progress.
    package static var idle: RunStatusReply { RunStatusReply(state: "idle") }

    package init(state: String) {
        self.state = state
        self.startOrigin = nil
    }
}

/// The phone's view of the watch's mirrored workout: whether it asked, what RunWay assumed
/// (`assumedStarted`) and what happened (`state`: notRequested, requested, confirmed, failed, unconfirmed).
package struct RunMirroring: Codable, Sendable, Equatable {
    package var requested: Bool
    package var assumedStarted: Bool
    package var state: String
    /// ISO 8601.
    package var confirmedAt: String?
    package var failureReason: String?
    /// Who saves the run to Health (issue 51): `watch` once it confirmed it runs it, else `phone`.
    package var healthSaver: String?
    /// Why the phone took the save back from the watch, if it did (once).
    package var takenBack: String?

    package init(
        requested: Bool, assumedStarted: Bool, state: String, confirmedAt: String? = nil, failureReason: String? = nil, healthSaver: String? = nil,
        takenBack: String? = nil
    ) {
        self.requested = requested
        self.assumedStarted = assumedStarted
        self.state = state
        self.confirmedAt = confirmedAt
        self.failureReason = failureReason
        self.healthSaver = healthSaver
        self.takenBack = takenBack
    }
}

/// GPWS's decision on one sample: `{"t":600,"pace":0,"hr":120,"stationary":true,"decided":false,"gpws":"CLEAR","alert":null}`.
package struct RunDecision: Codable, Sendable, Equatable {
    package var t: Double
    package var pace: Double
    package var hr: Double
    package var stationary: Bool
    package var decided: Bool
    package var gpws: String
    @NullIfNil package var alert: String?

    package init(t: Double, pace: Double, hr: Double, stationary: Bool, decided: Bool, gpws: String, alert: String?) {
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
package struct RunStopReply: ControlReply {
    package var id: String
    package var distanceKm: Double
    package var durationSeconds: Double
    package var alerts: Int64
    /// `local` or `remote`.
    package var startOrigin: String
    package var transfer: Int64?
    package var transferred: Bool?
    package var saved: String?
    package var trace: [RunDecision]?

    package init(id: String, distanceKm: Double, durationSeconds: Double, alerts: Int64, startOrigin: String) {
        self.id = id
        self.distanceKm = distanceKm
        self.durationSeconds = durationSeconds
        self.alerts = alerts
        self.startOrigin = startOrigin
    }
}
