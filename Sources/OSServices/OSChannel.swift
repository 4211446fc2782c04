import Control
import JSONText

// MARK: - A call an app makes of its OS, declared once

/// One call an app's Apple-named module (`HealthKit`, `UserNotifications`) makes of its device's OS,
/// declared once, as its control command (`ControlCommand`, in `Control/Commands/OS*Requests.swift`): a
/// `Codable` type whose stored properties are its arguments, their typed keys beside them, its reply and
/// its `spec` — the command that carries it on `os.sock`, in the catalogue. What the OS does with it
/// (`answer(by:)`) is this conformance, beside the service (`HealthRequests.swift`). Nothing else is
/// written per call: `OSChannel.call` carries it in process or over `os.sock`, and `ControlRouter.serve`
/// answers it in the OS — the same `answer(by:)` either way.
///
/// The calls of one service are declared together, as nested types of the service's namespace
/// (`HealthRequest`, `NotificationRequest`), which lists them (`commands`); the catalogue reads every
/// service's list (`ControlCommands.osServiceCommands`), and so does the OS (`SystemServices.requests`).
package protocol OSRequest: ControlCommand, Codable, Sendable {
    /// What the OS does: the one implementation, in process and behind `os.sock`. A refusal the app
    /// should see as its API's "invalid argument" is thrown as an `OSRefusal`.
    func answer(by os: SystemServices) throws -> Reply
    /// What the OS checks of a request that came from another process, beyond the catalogue's types
    /// (lengths, finite numbers): a refusal, or nothing. None by default.
    func check() throws(OSRequestRefused)
}

extension OSRequest {
    package func check() throws(OSRequestRefused) {}
}

/// The OS refused a request for what it asked (a workout that is not one, a notification in the past):
/// exit 2 on `os.sock`, and the app's API reports its own "invalid argument". The same on both channels.
package protocol OSRefusal: Error, CustomStringConvertible {}

/// A refusal as it comes back over `os.sock` (its one line), or as a request's `check()` says it.
package struct OSRequestRefused: OSRefusal {
    package let description: String
    package init(_ description: String) { self.description = description }
}

// MARK: - The channel: in process or over os.sock

/// The app's way to its OS, picked where the device is composed (`DeviceHost.prepare`): the OS's own
/// `SystemServices` when the device runs without an OS process (`phone-daemon`, `watch-agent` by hand:
/// `call` is a function call), or `OSClient` when phone-os or watch-os launched the app (`call` is one
/// request on `os.sock`). The app's modules see only this.
package protocol OSChannel: AnyObject {
    /// The device's time now — no round trip: the OS tells the app its clock on the attached connection.
    var deviceNow: Double { get }
    /// Carries `request` to the OS and returns its reply; an `OSRefusal` if the OS refused it.
    func call<Request: OSRequest>(_ request: Request) throws -> Request.Reply
    /// Tells `listener` each `Event` the OS publishes while the app runs (a delivered notification).
    func observe<Event: OSEvent>(_ type: Event.Type, _ listener: @escaping (Event) -> Void)
}

/// In process: the request's answer, called directly; an event, handed over as it is.
extension SystemServices: OSChannel {
    package var deviceNow: Double { clock.now }
    package func call<Request: OSRequest>(_ request: Request) throws -> Request.Reply { try request.answer(by: self) }
    package func observe<Event: OSEvent>(_ type: Event.Type, _ listener: @escaping (Event) -> Void) {
        eventObservers[Event.name, default: []].append { event in if let event = event as? Event { listener(event) } }
    }
}

// MARK: - What the OS tells the running app unasked, declared once

/// Something a service of the OS tells the running app unasked (a delivered notification), declared
/// once: a `Codable` record and its name. The OS publishes it (`SystemServices.publish`); in process it
/// reaches the app's observers as it is, over `os.sock` as the record's fields with `event` set to its
/// name on the app's attached connection (phone-os and watch-os relay every one: `onPublished`), where
/// `OSClient` decodes it by that name.
package protocol OSEvent: ControlRecord {
    static var name: String { get }
}

extension OSEvent {
    /// As the OS sends it on the attached connection: its fields, and `event`, its name.
    package var eventJSON: JSONValue {
        guard case .object(var fields) = json else { preconditionFailure("\(Self.self) is not an object") }
        fields["event"] = .string(Self.name)
        return .object(fields)
    }
}

// MARK: - The OS's side of os.sock: one adapter for every request

extension ControlRouter {
    /// Answers `Request`'s command with `os`: the arguments decoded into the request, checked, answered
    /// by `answer(by:)`, the reply sent. A refusal is one line, exit 2. Skipped on a server the command is
    /// not for (`os-health-save` is the OS process's; `health` is every device's).
    package func serve<Request: OSRequest>(_ type: Request.Type, by os: SystemServices) {
        guard Request.spec.servers.contains(server) else { return }
        on(Request.spec) { arguments, connection in
            let request: Request
            do {
                request = try JSONValueDecoder().decode(Request.self, from: .object(arguments.arguments))
            } catch {
                throw ControlError.invalid("\(Request.spec.name): \(error)")
            }
            do {
                try request.check()
                connection.reply(try request.answer(by: os))
            } catch let refusal as any OSRefusal {
                throw ControlError.invalid(refusal.description)
            }
        }
    }
}
