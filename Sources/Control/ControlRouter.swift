import Connectivity
import Posix

/// The one place a daemon's control requests are dispatched. Handlers register by command name; a
/// request is checked against the catalogue (`ControlCommands`) before its handler runs: a command this
/// program does not answer, a test command without `--enable-test-commands`, arguments that do not fit
/// the command's declarations, a session command before activation — each is refused here, the same
/// way for every command, and the handler reads only checked, typed, defaulted arguments.
package final class ControlRouter {
    package typealias Handler = (ControlRequest, ControlConnection) throws -> Void

    package let server: ControlServerKind
    /// Set by `--enable-test-commands`.
    package var testCommandsEnabled = false
    /// Whether the session's API is usable yet (the phone's `--activation-delay-ms` window).
    package var sessionIsActivated: () -> Bool = { true }
    private var handlers: [String: Handler] = [:]

    package init(server: ControlServerKind) {
        self.server = server
    }

    /// Registers the handler of `command` — by its declaration in the catalogue, never by a string: a
    /// misspelt command does not compile. It must be one this server answers and
    /// not registered yet: either mistake stops the daemon at start-up, where it is made (issue 43:
    /// `context-set` was registered twice and the last silently won). A layer that takes a command over
    /// says so with `replace`.
    package func on(_ command: ControlCommandSpec, _ handler: @escaping Handler) {
        if let problem = registrationProblem(command, replacing: false) { preconditionFailure(problem) }
        handlers[command.name] = handler
    }

    /// Takes over `name`, registered before: the phone app's own `context-set`, which adds its language
    /// to the context the session's sets. A command nothing registered is a programming error.
    package func replace(_ command: ControlCommandSpec, _ handler: @escaping Handler) {
        if let problem = registrationProblem(command, replacing: true) { preconditionFailure(problem) }
        handlers[command.name] = handler
    }

    /// Why registering (or replacing) `command` now would be a programming error, if it would.
    package func registrationProblem(_ command: ControlCommandSpec, replacing: Bool) -> String? {
        let name = command.name
        guard ControlCommands.spec(name, on: server) != nil else { return "\(name) is not a \(server.rawValue) command in ControlCommands" }
        if replacing, handlers[name] == nil { return "\(name) is not registered on the \(server.rawValue): nothing to replace" }
        if !replacing, handlers[name] != nil { return "\(name) is registered twice on the \(server.rawValue): use replace(_:_:) to take a command over" }
        return nil
    }

    /// The handler registered for `name`, to wrap it.
    package func handler(_ name: String) -> Handler? { handlers[name] }

    /// Catalogue commands this server answers that nothing registered: empty when the daemon is whole.
    package var unregistered: [String] {
        ControlCommands.answered(by: server).map(\.name).filter { handlers[$0] == nil }
    }

    package func route(_ request: ControlRequest, _ connection: ControlConnection) throws {
        let (handler, validated) = try prepare(request)
        try handler(validated, connection)
    }

    /// The handler a request goes to and the request as it gets it — its arguments checked against the
    /// catalogue, defaults filled in — or the refusal it gets: the checks every command passes, in
    /// order, before anything of it runs.
    package func prepare(_ request: ControlRequest) throws(ControlError) -> (handler: Handler, request: ControlRequest) {
        let spec = try self.spec(request.command)
        let validated = ControlRequest(command: request.command, arguments: try spec.validate(request.arguments))
        return (try handler(spec), validated)
    }

    /// The handler a request named `name` goes to, or the refusal it gets (its arguments aside).
    package func handler(for name: String) throws(ControlError) -> Handler {
        try handler(try spec(name))
    }

    /// The command's declaration, if this server answers it and may now: unknown here, or a test command
    /// without `--enable-test-commands`, is refused.
    private func spec(_ name: String) throws(ControlError) -> ControlCommandSpec {
        guard let spec = ControlCommands.spec(name, on: server) else {
            let who = server == .phoneOS || server == .watchOS ? server.rawValue : "the \(server.rawValue)"
            let known = ControlCommands.all.filter { $0.servers.contains(server) }.map(\.name)
            throw ControlError.invalid(
                "\(who) does not know the command \(OneLine.quote(name))\(Suggestions.phrase(Suggestions.closest(to: name, among: known), quoted: true))")
        }
        if spec.isTestCommand, !testCommandsEnabled {
            throw ControlError.invalid("\(name) is a fault-injection command for tests: this \(server.programName) was not started with --enable-test-commands")
        }
        return spec
    }

    /// After the arguments: a session command waits for activation (7004), and something must handle it.
    private func handler(_ spec: ControlCommandSpec) throws(ControlError) -> Handler {
        if spec.needsActivatedSession, !sessionIsActivated() {
            throw ControlError(WCError(.sessionNotActivated, "the \(server.rawValue)'s session is not activated yet"))
        }
        guard let handler = handlers[spec.name] else {
            throw ControlError("\(spec.name) is not available in this \(server.programName)")
        }
        return handler
    }
}
