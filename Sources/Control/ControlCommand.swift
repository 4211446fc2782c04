/// A control command declared as one Swift type (issue 43): its name, who answers it, its arguments (the
/// typed keys, static members of the type itself), its reply type, its failures and its summary in one
/// `spec`, and, if its `runway` flags are its arguments one for one, its CLI form (`cli`) — from which the
/// CLI derives the command's flags, synopsis, help, completion and man entry, with no CLI code of its own.
///
///     package enum StoreLimit: ControlCommand {
///         package typealias Reply = StoreLimitReply
///         package static let pages = ControlArgument<Int>("pages", .int(0...Int(Int32.max)), required: true, "…")
///         package static let spec = ControlCommandSpec(Self.self, "store-limit", both, test: true, arguments: [pages], "…")
///     }
///
/// A handler registers by the type, and the compiler ties its arguments and its reply to it:
/// `router.on(ControlCommands.StoreLimit.self) { args in StoreLimitReply(pages: Int64(args.pages)) }`. A type is in the
/// catalogue through its family's list (`ControlCommands.declared`); one left out stops the daemon that
/// registers it at start-up (`ControlRouter.registrationProblem`), so it cannot be forgotten quietly.
package protocol ControlCommand: SendableMetatype {
    /// What a handler answers, and what the CLI decodes.
    associatedtype Reply: ControlReply
    /// The command's declaration: build it with `ControlCommandSpec(Self.self, …)`, which names `Reply`.
    static var spec: ControlCommandSpec { get }
    /// How `runway` offers it, derived whole from `spec`; nil (the default) when it has no CLI of its own
    /// or a hand-written one (richer flags: files, units, positionals; text output of its own).
    static var cli: ControlCommandCLI? { get }
}

extension ControlCommand {
    package static var cli: ControlCommandCLI? { nil }

    /// A request of this command, its arguments set through its typed keys.
    package static func request(_ set: (inout ControlRequest) -> Void = { _ in }) -> ControlRequest { spec.request(set) }
}

/// The CLI form of a command whose flags are its arguments, one for one:
/// `runway phone|watch WORDS [--home DIR] [--ARGUMENT VALUE]… [--json]` on each device that answers it.
/// Each argument is a flag named after it (`timeoutMs`: `--timeout-ms`; a `bool` that defaults to false: a
/// flag without a value), checked by the catalogue before anything is sent; the reply is printed as JSON
/// (`--json`: on one line).
package struct ControlCommandCLI: Sendable {
    /// The words after `runway phone|watch`: `["context", "get"]`; nil for the command's name.
    package let words: [String]?
    /// The help's paragraph, for the device (`phone`) and its counterpart (`watch`).
    package let help: @Sendable (_ device: String, _ other: String) -> String

    package init(_ words: [String]? = nil, help: @escaping @Sendable (_ device: String, _ other: String) -> String) {
        self.words = words
        self.help = help
    }
}

extension ControlCommandSpec {
    /// The declaration of a command declared as a type: its reply is `Command.Reply`, named only when asked
    /// (as every reply type is: `replyTypes`).
    package init<Command: ControlCommand>(
        _ command: Command.Type, _ name: String, _ servers: Set<ControlServerKind>, session: Bool = false, test: Bool = false,
        arguments: [any ControlArgumentDeclaration] = [], errors: [ControlErrorSpec] = [], _ summary: String
    ) {
        self.init(name, servers, session: session, test: test, arguments: arguments, reply: Command.Reply.self, errors: errors, summary)
    }
}

/// A command's arguments as its handler reads them, checked and defaulted by the router: each by its
/// key's name, typed by the key — `args.limit` is `Files.limit`'s `Int` — and only the command's own
/// (another command's key does not compile).
@dynamicMemberLookup
package struct ControlArguments<Command: ControlCommand>: Sendable {
    /// The request, validated.
    package let request: ControlRequest

    package init(request: ControlRequest) { self.request = request }

    package subscript<Value>(dynamicMember key: KeyPath<Command.Type, ControlArgument<Value>>) -> Value {
        request[Command.self[keyPath: key]]
    }
}

extension ControlRouter {
    /// Registers the handler of a command declared as a type: it gets the command's arguments, checked,
    /// typed and defaulted, and returns its reply — the compiler ties both to the command. The same rules
    /// as `on(_:_:)`: a command this server does not answer, or one registered twice, stops the daemon at
    /// start-up. A handler that answers later (on another turn of the loop) registers with
    /// `on(_:later:)`.
    package func on<Command: ControlCommand>(_ command: Command.Type, _ handler: @escaping (ControlArguments<Command>) throws -> Command.Reply) {
        on(Command.spec) { request, connection in connection.reply(try handler(ControlArguments(request: request))) }
    }

    /// Registers the handler of a command that answers later, on another turn of the loop (`message`
    /// waits for the counterpart's reply, `transfer-file` for its copy): it gets the command's arguments
    /// and the means to answer — with the command's reply or an error, nothing else. What it throws
    /// before it returns is the answer at once.
    package func on<Command: ControlCommand>(
        _ command: Command.Type, later handler: @escaping (ControlArguments<Command>, ControlReplyLater<Command>) throws -> Void
    ) {
        on(Command.spec) { request, connection in try handler(ControlArguments(request: request), ControlReplyLater(connection)) }
    }

    /// Takes over a command declared as a type, registered before (as `replace(_:_:)`): the phone app's
    /// own `context-set`.
    package func replace<Command: ControlCommand>(_ command: Command.Type, _ handler: @escaping (ControlArguments<Command>) throws -> Command.Reply) {
        replace(Command.spec) { request, connection in connection.reply(try handler(ControlArguments(request: request))) }
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
