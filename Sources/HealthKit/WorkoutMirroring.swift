import Connectivity
import AppHost
import Foundation
import PropertyLists

/// The system's half of HealthKit's mirrored workout sessions, in the app's process: the watch's
/// primary session announced to the phone (`startMirroringToCompanionDevice`), the phone's mirror made
/// for it and handed to `workoutSessionMirroringStartHandler`, the primary's state changes, the data
/// each side sends (`sendToRemoteWorkoutSession`), the mirror's controls (`pause()`, `end()` …) and the
/// stop. All of it rides the link's `workout` frame (0x18), as `startWatchApp` does: system traffic,
/// not the app's userInfo. Each direction is numbered and kept until the counterpart acknowledges it
/// (`MirrorSender`, `MirrorReceiver`), sent again in order whenever the link returns (and once a second
/// while something is unacknowledged), taken once: what is sent while the link is down arrives after it
/// returns, and its completion runs then. Lives on the device's thread.
final class WorkoutMirroring: @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: WorkoutMirroring?

    /// The process's (one device per process), made at first use; nil without a device.
    static func shared() -> WorkoutMirroring? {
        if let existing = lock.withLock({ made }) { return existing }
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return nil }
        return host.mailbox.sync {
            if let existing = lock.withLock({ made }) { return existing }
            let mirroring = WorkoutMirroring(host: host)
            lock.withLock { made = mirroring }
            // Mirrored sessions ride the system's link, whether or not the app activates a `WCSession`.
            host.systemNeedsTheLink()
            return mirroring
        }
    }

    /// A mirrored session as this side holds it.
    private final class Entry {
        let id: String
        let session: HKWorkoutSession
        var sender = MirrorSender()
        var receiver = MirrorReceiver()
        var completions: [Int64: (Bool, (any Error)?) -> Void] = [:]
        /// The primary's: the counterpart acknowledged its start.
        var startConfirmed = false
        /// Mirroring stopped (this side sent the stop, or heard it): nothing more is sent.
        var stopped = false

        init(id: String, session: HKWorkoutSession) {
            self.id = id
            self.session = session
        }
    }

    private let host: DeviceHost
    private var entries: [String: Entry] = [:]
    /// Sessions whose mirroring ended: items still arriving for them are acknowledged and dropped.
    private var finished: Set<String> = []
    /// The phone's store whose `workoutSessionMirroringStartHandler` takes mirrors, and the mirrors made
    /// before it was set.
    private weak var handlerStore: HKHealthStore?
    private var waiting: [HKWorkoutSession] = []
    private var retryScheduled = false
    /// The interval at which unacknowledged traffic is sent again while the link is up, and how many
    /// times per link (a counterpart that never answers — an OS holding the link for an app that is not
    /// running — is not sent the same frames forever; the next link sends them again).
    private let retryMilliseconds: UInt64 = 1000
    private let retriesPerLink = 10
    private var retriesLeft = 10

    private init(host: DeviceHost) {
        self.host = host
        host.systemWorkoutHandlers.append { [unowned self] event in self.take(event) }
        host.onLinkEstablished.append { [unowned self] _ in
            self.retriesLeft = self.retriesPerLink
            for entry in self.entries.values { self.resend(entry, announce: true) }
        }
    }

    /// Runs `body` on the device's thread.
    func onDevice<R>(_ body: () -> R) -> R { host.mailbox.sync(body) }

    private var isWatch: Bool { host.configuration.role == .watch }

    // MARK: - What the app asks (on the device's thread)

    func startMirroring(_ session: HKWorkoutSession) -> HKError? {
        guard isWatch else { return HKError(.errorInvalidArgument, message: "startMirroringToCompanionDevice(completion:) is the watch's") }
        guard session.type == .primary, session.state != .ended else {
            return HKError(.errorInvalidArgument, message: "only a primary session that has not ended can be mirrored")
        }
        // Before the session is activated (at launch) pairing is not known yet: the start waits for the link.
        guard let link = host.session, link.activationState != .activated || link.isPaired else {
            return HKError(.errorHealthDataUnavailable, message: "no phone is paired with this watch")
        }
        if let id = session.mirrorID, entries[id]?.stopped == false { return nil }
        let entry = Entry(id: UUID().uuidString.uppercased(), session: session)
        session.mirrorID = entry.id
        entries[entry.id] = entry
        host.logger.info("health.mirroring-started", ["session": entry.id])
        resend(entry, announce: true)
        return nil
    }

    func stopMirroring(_ session: HKWorkoutSession) -> HKError? {
        guard let id = session.mirrorID, let entry = entries[id], !entry.stopped, session.type == .primary else {
            return HKError(.errorInvalidArgument, message: "the session is not being mirrored")
        }
        append(["op": .string("stop")], to: entry, completion: nil)
        entry.stopped = true
        host.logger.info("health.mirroring-stopped", ["session": id])
        session.remoteDisconnected()
        return nil
    }

    /// The most one `sendToRemoteWorkoutSession` carries (a choice: Apple documents no limit; the data is
    /// for a workout's small updates, and a frame must stay well under the link's limit).
    static let maximumDataBytes = 65_536

    func send(_ data: Data, from session: HKWorkoutSession, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard data.count <= Self.maximumDataBytes else {
            return completion(false, HKError(.errorDataSizeExceeded, message: "\(data.count) bytes, more than \(Self.maximumDataBytes)"))
        }
        guard let id = session.mirrorID, let entry = entries[id], !entry.stopped else {
            return completion(false, HKError(.errorInvalidArgument, message: "sendToRemoteWorkoutSession(data:completion:): the session has no remote session"))
        }
        append(["op": .string("data"), "data": .data(Array(data))], to: entry, completion: completion)
    }

    /// The primary moved: its mirror follows. An ended primary stops mirroring after that.
    func primaryMoved(_ session: HKWorkoutSession, to state: HKWorkoutSessionState, from previous: HKWorkoutSessionState, at date: Date) {
        guard let id = session.mirrorID, let entry = entries[id], !entry.stopped else { return }
        append(
            [
                "op": .string("state"), "to": .integer(Int64(state.rawValue)), "from": .integer(Int64(previous.rawValue)),
                "date": .date(date.timeIntervalSince1970),
            ],
            to: entry, completion: nil)
        if state == .ended {
            append(["op": .string("stop")], to: entry, completion: nil)
            entry.stopped = true
            session.remoteDisconnected()
        }
    }

    /// The mirror's `pause()`, `resume()`, `stopActivity(with:)`, `end()`: carried out by the primary.
    func control(_ session: HKWorkoutSession, _ command: String) {
        guard let id = session.mirrorID, let entry = entries[id], !entry.stopped else { return }
        append(["op": .string("control"), "command": .string(command)], to: entry, completion: nil)
    }

    /// The phone's app set its handler: mirrors made before now are handed to it.
    func handlerSet(on store: HKHealthStore) {
        handlerStore = store
        let held = waiting
        waiting = []
        for session in held { store.workoutSessionMirroringStartHandler?(session) }
    }

    // MARK: - The link

    private func append(_ item: UserInfo, to entry: Entry, completion: ((Bool, (any Error)?) -> Void)?) {
        let seq = entry.sender.append(item)
        if let completion { entry.completions[seq] = completion }
        transmit(MirrorFrame.numbered(item, session: entry.id, seq: seq))
        scheduleRetry()
    }

    private func transmit(_ frame: UserInfo) { _ = host.session?.sendWorkoutEvent(frame) }

    /// The primary's start (after a link cut too: a phone restarted meanwhile makes its mirror again),
    /// then everything unacknowledged, in order.
    private func resend(_ entry: Entry, announce: Bool) {
        if entry.session.type == .primary, announce || !entry.startConfirmed, !(entry.stopped && entry.sender.pending.isEmpty) {
            let configuration = entry.session.workoutConfiguration
            transmit([
                "kind": .string(MirrorFrame.start), "session": .string(entry.id), "acknowledged": .integer(entry.sender.acknowledged),
                "through": .integer(entry.sender.last), "received": .integer(entry.receiver.delivered),
                "activityType": .integer(Int64(configuration.activityType.rawValue)),
                "locationType": .integer(Int64(configuration.locationType.rawValue)), "state": .integer(Int64(entry.session.state.rawValue)),
                "startDate": .date((entry.session.startDate ?? hostNow()).timeIntervalSince1970),
            ])
        }
        for (seq, item) in entry.sender.pending { transmit(MirrorFrame.numbered(item, session: entry.id, seq: seq)) }
        scheduleRetry()
    }

    private func hostNow() -> Date { Date(timeIntervalSince1970: host.deviceNow) }

    private func needsRetry(_ entry: Entry) -> Bool {
        !entry.sender.pending.isEmpty || (entry.session.type == .primary && !entry.startConfirmed && !entry.stopped)
    }

    private func scheduleRetry() {
        notePending()
        guard !retryScheduled, retriesLeft > 0, entries.values.contains(where: needsRetry) else { return }
        retryScheduled = true
        _ = host.loop.schedule(afterMilliseconds: retryMilliseconds) { [weak self] in
            guard let self else { return }
            self.retryScheduled = false
            self.retriesLeft -= 1
            if self.host.session?.isLinked == true {
                for entry in self.entries.values where self.needsRetry(entry) { self.resend(entry, announce: false) }
            }
            self.scheduleRetry()
        }
    }

    // MARK: - What arrives

    /// A `workout` frame: true if it is mirroring's.
    private func take(_ event: UserInfo) -> Bool {
        guard let kind = event["kind"]?.stringValue, MirrorFrame.kinds.contains(kind) else { return false }
        guard let id = event["session"]?.stringValue else { return true }
        switch kind {
        case MirrorFrame.start: receiveStart(id, event)
        case MirrorFrame.ack: receiveAck(id, upTo: event["upTo"]?.int64Value ?? 0)
        case MirrorFrame.gone: receiveGone(id)
        default: receiveItem(id, event)
        }
        return true
    }

    private func acknowledge(_ id: String, upTo: Int64) { transmit(MirrorFrame.acknowledgement(session: id, upTo: upTo)) }

    /// The watch's session, on the phone: its mirror, made once and handed to the app's handler.
    private func receiveStart(_ id: String, _ event: UserInfo) {
        guard !isWatch else { return }
        if let entry = entries[id] { return acknowledge(id, upTo: entry.receiver.delivered) }
        // Everything the start says was sent (`through`, its sender's last item), never more: an
        // acknowledgement past the last item sent is a protocol violation (issue 51).
        if finished.contains(id) { return acknowledge(id, upTo: event["through"]?.int64Value ?? event["acknowledged"]?.int64Value ?? 0) }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = event["activityType"]?.int64Value.flatMap { HKWorkoutActivityType(rawValue: UInt(max(0, $0))) } ?? .other
        configuration.locationType = event["locationType"]?.int64Value.flatMap { HKWorkoutSessionLocationType(rawValue: Int($0)) } ?? .unknown
        let state = event["state"]?.int64Value.flatMap { HKWorkoutSessionState(rawValue: Int($0)) } ?? .running
        let session = HKWorkoutSession(
            mirroring: id, healthStore: handlerStore ?? HKHealthStore(), configuration: configuration, state: state,
            startDate: Date(timeIntervalSince1970: event["startDate"]?.doubleValue ?? host.deviceNow))
        let entry = Entry(id: id, session: session)
        entry.receiver = MirrorReceiver(delivered: event["acknowledged"]?.int64Value ?? 0, statesThrough: event["through"]?.int64Value ?? 0)
        entry.sender = MirrorSender(after: event["received"]?.int64Value ?? 0)
        entries[id] = entry
        host.logger.info("health.mirror-started", ["session": id, "state": "\(state)"])
        acknowledge(id, upTo: entry.receiver.delivered)
        if let store = handlerStore, let handler = store.workoutSessionMirroringStartHandler { handler(session) } else { waiting.append(session) }
    }

    private func receiveItem(_ id: String, _ event: UserInfo) {
        guard let seq = event["seq"]?.int64Value else { return }
        guard let entry = entries[id] else {
            // On the watch: a primary that ended (the item crossed its stop) or went with an earlier run of
            // the app — the mirror is told, and fails what it sent (nothing is dropped unsaid). On the phone,
            // after the stop: let the sender go; before the start: wait for it (sent again).
            if isWatch {
                transmit(["kind": .string(MirrorFrame.gone), "session": .string(id)])
            } else if finished.contains(id) {
                acknowledge(id, upTo: seq)
            }
            return
        }
        switch entry.receiver.receive(seq) {
        case .gap: return
        case .duplicate: return acknowledge(id, upTo: entry.receiver.delivered)
        case .deliver: break
        }
        acknowledge(id, upTo: seq)
        let session = entry.session
        switch event["op"]?.stringValue {
        case "data":
            session.remoteData(Data(event["data"]?.dataValue ?? []))
        case "state":
            guard seq > entry.receiver.statesThrough, let to = event["to"]?.int64Value.flatMap({ HKWorkoutSessionState(rawValue: Int($0)) }) else {
                return
            }
            session.remoteMoved(to: to, at: Date(timeIntervalSince1970: event["date"]?.doubleValue ?? host.deviceNow))
        case "control":
            guard session.type == .primary else { return }
            switch event["command"]?.stringValue {
            case "pause": session.pause()
            case "resume": session.resume()
            case "stop": session.stopActivity(with: nil)
            case "end": session.end()
            default: break
            }
        case "stop":
            entry.stopped = true
            host.logger.info("health.mirroring-ended", ["session": id])
            session.remoteDisconnected()
            forgetIfDone(entry)
        default:
            break
        }
    }

    private func receiveAck(_ id: String, upTo: Int64) {
        guard let entry = entries[id] else { return }
        var done: [Int64] = []
        switch entry.sender.acknowledge(upTo: upTo, trusting: host.session?.trustsCounterpart ?? false) {
        case .nothingNew: break
        case let .moved(seqs): done = seqs
        case let .violation(why):
            // Issue 51: completing what the counterpart never received would lose it unsaid.
            host.session?.workoutProtocolViolation("\(MirrorFrame.ack) for session \(id): \(why)")
            return
        }
        entry.startConfirmed = true
        for seq in done { entry.completions.removeValue(forKey: seq)?(true, nil) }
        forgetIfDone(entry)
        notePending()
    }

    /// The watch's session says in its next `hello` whether a mirror waits for the phone: phone-os
    /// launches the phone app for it, as iOS does for `startMirroringToCompanionDevice`.
    private func notePending() {
        guard isWatch else { return }
        host.session?.workoutMirroringPending = entries.values.contains(where: needsRetry)
    }

    /// The watch has no such primary — it ended, or went with its app (killed): what the mirror had not
    /// delivered fails, and its delegate hears the disconnection with the error (unless it heard the stop).
    private func receiveGone(_ id: String) {
        guard !isWatch, let entry = entries[id] else { return }
        let error = HKError(.errorHealthDataUnavailable, message: "the remote workout session has ended or its watch app is gone")
        host.logger.warning("health.mirror-gone", ["session": id, "undelivered": entry.sender.pending.count])
        entries[id] = nil
        finished.insert(id)
        for (_, completion) in entry.completions.sorted(by: { $0.key < $1.key }) { completion(false, error) }
        if !entry.stopped { entry.session.remoteDisconnected(error) }
    }

    /// A stopped session is forgotten once all it sent is acknowledged.
    private func forgetIfDone(_ entry: Entry) {
        guard entry.stopped, entry.sender.pending.isEmpty else { return }
        entries[entry.id] = nil
        finished.insert(entry.id)
    }
}
