import JSONText

/// A control command declared as one Swift type (issues 43, 53): a `Codable` value whose stored
/// properties are its arguments (`@Argument`: kind, summary, default, where it is stored; the key is the
/// property's name), with its name, who answers it, its reply type, its failures and its summary in one
/// `spec`, and, if `runway` offers it, its CLI form (`cli`) — from which the CLI derives the command's
/// words, flags, synopsis, help, completion and man entry.
///
///     package struct Transfers: ControlCommand {
///         package typealias Reply = TransfersReply
///         @Argument(.int(1...100_000), "list at most this many") package var limit = 100
///         package static let spec = ControlCommandSpec(Self.self, "transfers", both, session: true, "outstanding userInfo transfers")
///         package init() {}
///     }
///
/// A client sends a value — `client.send(ControlCommands.Transfers { $0.limit = 5 })` returns a
/// `TransfersReply` — and a handler gets one, checked and defaulted by the router:
/// `router.on(ControlCommands.Transfers.self) { args in TransfersReply(… args.limit …) }`. A type is in the
/// catalogue through its family's list (`ControlCommands.declared`); one left out stops the daemon that
/// registers it at start-up (`ControlRouter.registrationProblem`), so it cannot be forgotten quietly.
/// (`package init() {}` is the one line Swift needs written: it gives a package type no package
/// initializer of its own.)
package protocol ControlCommand<Reply>: Codable, Sendable, SendableMetatype {
    /// What a handler answers, and what the client decodes.
    associatedtype Reply: ControlReply
    /// The command's declaration: build it with `ControlCommandSpec(Self.self, …)`, which names `Reply`
    /// and reads the arguments from the stored properties.
    static var spec: ControlCommandSpec { get }
    /// How `runway` offers it, derived from `spec` and the arguments; nil when it has no CLI of its own.
    static var cli: ControlCommandCLI? { get }
    /// The command with no argument set (each reads as its default).
    init()
}

extension ControlCommand {
    package static var cli: ControlCommandCLI? { nil }

    /// The command with its arguments set: `ControlCommands.Record { $0.count = 3 }`.
    package init(_ set: (inout Self) -> Void) {
        self.init()
        set(&self)
    }

    /// The arguments its stored properties declare, in their order, each with how `runway` offers it.
    /// A group's (`@ArgumentGroup`) stand where the group does.
    package static func declaredArguments() -> [(spec: ControlArgumentSpec, cli: ControlArgumentCLI)] { arguments(declaredBy: Self()) }

    /// The request this value is: its command's name and the arguments set (those not set are left out,
    /// and the daemon fills in their defaults).
    package var request: ControlRequest {
        let encoded: JSONValue
        do { encoded = try JSONValueEncoder().encode(self) } catch { preconditionFailure("\(Self.self) cannot be encoded: \(error)") }
        return ControlRequest(command: Self.spec.name, arguments: encoded.objectValue ?? [:])
    }

    /// The command a request carries — one the router checked (its defaults filled in): what a handler gets.
    package init(request: ControlRequest) throws(ControlError) {
        do throws(JSONDecodingFailure) {
            self = try JSONValueDecoder().decode(Self.self, from: .object(request.arguments))
        } catch {
            throw ControlError.invalid("\(Self.spec.name): \(error)")
        }
    }
}

extension ControlCommandSpec {
    /// The declaration of a command declared as a type: its arguments are `Command`'s stored
    /// `@Argument`s, its reply `Command.Reply` (named only when asked, as every reply type is: `replyTypes`).
    package init<Command: ControlCommand>(
        _ command: Command.Type, _ name: String, _ servers: Set<ControlServerKind>, session: Bool = false, test: Bool = false,
        errors: [ControlErrorSpec] = [], _ summary: String
    ) {
        self.init(
            name, servers, session: session, test: test, arguments: Command.declaredArguments().map(\.spec), reply: Command.Reply.self, errors: errors,
            summary)
    }
}

extension ControlRouter {
    /// Registers the handler of a command declared as a type: it gets the command — its arguments
    /// checked, typed and defaulted — and returns its reply; the compiler ties both to the command. The
    /// same rules as `on(_:_:)`: a command this server does not answer, or one registered twice, stops the
    /// daemon at start-up. A handler that answers later (on another turn of the loop) registers with
    /// `on(_:later:)`.
    package func on<Command: ControlCommand>(_ command: Command.Type, _ handler: @escaping (Command) throws -> Command.Reply) {
        on(Command.spec) { request, connection in connection.reply(try handler(try Command(request: request))) }
    }

    /// Registers the handler of a command that answers later, on another turn of the loop (`message`
    /// waits for the counterpart's reply, `transfer-file` for its copy): it gets the command and the means
    /// to answer — with the command's reply or an error, nothing else. What it throws before it returns is
    /// the answer at once.
    package func on<Command: ControlCommand>(_ command: Command.Type, later handler: @escaping (Command, ControlReplyLater<Command>) throws -> Void) {
        on(Command.spec) { request, connection in try handler(try Command(request: request), ControlReplyLater(connection)) }
    }

    /// Registers the handler of a command that keeps its connection past the reply (`attach`, `events`
    /// with `follow`, `os-attach-app`) or streams it (`logbook`): it gets the command and the connection,
    /// and answers on it.
    package func on<Command: ControlCommand>(_ command: Command.Type, connection handler: @escaping (Command, ControlConnection) throws -> Void) {
        on(Command.spec) { request, connection in try handler(try Command(request: request), connection) }
    }

    /// Takes over a command declared as a type, registered before (as `replace(_:_:)`): the phone app's
    /// own `context-set`.
    package func replace<Command: ControlCommand>(_ command: Command.Type, _ handler: @escaping (Command) throws -> Command.Reply) {
        replace(Command.spec) { request, connection in connection.reply(try handler(try Command(request: request))) }
    }
}

/// The answer to a command that a handler gives later (`ControlRouter.on(_:later:)`): the command's own
/// reply, or an error — another reply does not compile.
package struct ControlReplyLater<Command: ControlCommand> {
    private let connection: ControlConnection

    init(_ connection: ControlConnection) { self.connection = connection }

    package func reply(_ result: Command.Reply) { connection.reply(result) }
    package func reply(error: ControlError) { connection.reply(error: error) }
}
