import Connectivity
import Control
import JSONText
import Posix

/// `events`: the session's delegate calls (`DelegateTrace`). The reply is the most recent ones; with
/// `follow`, the connection then receives each new call as an `event` frame, as it happens.
///
/// The reply stays JSON: a call is declared once, as a case of `DelegateEvent.Call`, and written by
/// `DelegateEvent.json` with the members of its case (a receive's outcome, a finish's error); the same
/// objects then come as events, and `runway … events` prints whatever members a call has.
///
/// A follower that stops reading is detached once `ControlConnection.maximumUnreadEventBytes` wait for
/// it (`control.events-unread` in the log), like a stalled UI: the daemon's memory does not grow with it.
final class EventCommands {
    let trace: DelegateTrace
    private var followers: [ObjectIdentifier: ControlConnection] = [:]

    init(trace: DelegateTrace) {
        self.trace = trace
        trace.onEvent = { [unowned self] event in self.publish(event) }
    }

    func register(on router: ControlRouter) {
        router.on(ControlCommands.Events.self) { [unowned self] (args, connection: ControlConnection) in try events(args, connection) }
    }

    private func events(_ args: ControlCommands.Events, _ connection: ControlConnection) throws {
        guard !connection.isAttached, !connection.isFollowing else {
            throw ControlError.invalid("this connection already receives events")
        }
        let limit = args.limit
        let follow = args.follow
        // Within the followers' budget, or refused before the reply (one line, exit 1).
        if follow { try connection.follow() }
        connection.reply(.array(trace.recent(limit).map(\.json)))
        // After the reply, in the same turn of the loop: no call can fall between the two.
        if follow {
            followers[ObjectIdentifier(connection)] = connection
            let id = ObjectIdentifier(connection)
            connection.onClose = { [weak self] in self?.followers[id] = nil }
        }
    }

    private func publish(_ event: DelegateEvent) {
        guard !followers.isEmpty else { return }
        var writer = JSONWriter()
        writer.write(event.json)
        for follower in followers.values { follower.sendEvent(body: writer.bytes) }
    }
}
