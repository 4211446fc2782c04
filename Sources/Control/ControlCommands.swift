import Connectivity
import JSONText
import Posix

/// Which program answers a command on its control socket.
package enum ControlServerKind: String, Sendable, CaseIterable {
    case phone, watch
    /// `phone-os`, the phone's simulated iOS (`HOME/os.sock`).
    case phoneOS = "phone-os"
    /// `watch-os`, the watch's simulated watchOS (`HOME/os.sock` of the watch's home).
    case watchOS = "watch-os"

    /// The program's name, as a user knows it.
    package var programName: String {
        switch self {
        case .phone: "phone-daemon"
        case .watch: "watch-agent"
        case .phoneOS: "phone-os"
        case .watchOS: "watch-os"
        }
    }
}

/// A failure a command declares it can give, beyond bad arguments (exit 2, every command) and 7004
/// before activation (every session command): for the docs, and for the client to expect.
package struct ControlErrorSpec: Sendable, Equatable {
    /// 1: the operation failed; 2: the input was invalid.
    package let exitStatus: Int32
    /// The WatchConnectivity error it carries, if any (exit 1).
    package let code: WCError.Code?
    /// When it happens.
    package let when: String

    package static func wc(_ code: WCError.Code, _ when: String) -> ControlErrorSpec { ControlErrorSpec(exitStatus: 1, code: code, when: when) }
    package static func failure(_ when: String) -> ControlErrorSpec { ControlErrorSpec(exitStatus: 1, code: nil, when: when) }
    package static func invalid(_ when: String) -> ControlErrorSpec { ControlErrorSpec(exitStatus: 2, code: nil, when: when) }

    /// `7009 payloadTooLarge`, `exit 1`, `exit 2`.
    package var label: String { code.map { "\($0.rawValue) \($0.name)" } ?? "exit \(exitStatus)" }
}

/// One command of the control protocol: who answers it, on what terms, with which arguments, and how
/// it can fail. Every command a daemon answers is declared here, once (`ControlCommands.all`); a daemon's
/// `ControlRouter` refuses any other, and refuses a test command, a session command before activation
/// or a request whose arguments do not fit these declarations before any handler runs.
package struct ControlCommandSpec: Sendable {
    package let name: String
    package let servers: Set<ControlServerKind>
    /// The session's API: answered with 7004 `sessionNotActivated` until the session is activated.
    package let needsActivatedSession: Bool
    /// Fault injection for tests: refused unless the daemon was started with `--enable-test-commands`.
    package let isTestCommand: Bool
    package let summary: String
    /// The arguments it takes.
    package let arguments: [ControlArgumentSpec]
    /// The failures it declares, besides bad arguments and 7004.
    package let errors: [ControlErrorSpec]
    /// The Swift type of its reply on each server (`RecordReply`); none for the four whose reply is JSON
    /// (`JSONReply`), each for a reason said at its type: `logbook` (streamed a page at a time) and
    /// `flight` (written from `Flight.fields`, the flight's one declaration), `alerts` (`FlightAlert`'s
    /// `--json` form, from its one declaration) and `events` (the delegate calls, one shape per call,
    /// then followed as events). Named only when asked (the reference): `String(describing:)` of 43 types
    /// cost every daemon's start-up 18 M instructions. The types are not even touched until then: naming
    /// a metatype at start-up touched each reply type's metadata cache, one 8-byte variable on each of ~20
    /// pages of an idle daemon's memory.
    package var replyTypes: [ControlServerKind: String] {
        guard let reply = replyMetatype(), ObjectIdentifier(reply) != ObjectIdentifier(JSONReply.self) else { return [:] }
        return Dictionary(uniqueKeysWithValues: servers.map { ($0, String(describing: reply)) })
    }
    private let replyMetatype: @Sendable () -> (any ControlReply.Type)?

    init(
        _ name: String, _ servers: Set<ControlServerKind>, session: Bool = false, test: Bool = false, arguments: [ControlArgumentSpec] = [],
        reply: @autoclosure @escaping @Sendable () -> (any ControlReply.Type)? = nil, errors: [ControlErrorSpec] = [], _ summary: String
    ) {
        self.name = name
        self.servers = servers
        self.needsActivatedSession = session
        self.isTestCommand = test
        self.summary = summary
        self.arguments = arguments
        self.errors = errors
        self.replyMetatype = reply
    }

    /// The argument called `name`, if it takes one.
    package func argument(_ name: String) -> ControlArgumentSpec? { arguments.first { $0.name == name } }

    /// Keys every request may carry: the command's name, and the device the client thinks it talks to.
    package static let envelopeKeys: Set<String> = ["command", "role"]

    /// Checks `arguments` against the declarations for `server`: an argument the command does not take,
    /// a missing required one, a value of the wrong type or out of range — each one line, exit 2, the
    /// first in a fixed order (unknown keys, then the declarations in order). Returns them with the
    /// defaults filled in and whole reals made integers; the envelope keys pass through.
    package func validate(_ arguments: [String: JSONValue]) throws(ControlError) -> [String: JSONValue] {
        let declared = self.arguments
        let names = Set(declared.map(\.name))
        for key in arguments.keys.sorted() where !names.contains(key) && !Self.envelopeKeys.contains(key) {
            let takes = declared.isEmpty ? "it takes no arguments" : "it takes \(ControlArgumentKind.list(declared.map(\.name)))"
            let close = Suggestions.closest(to: key, among: declared.map(\.name))
            throw .invalid("\(name) does not take \(OneLine.quote(key))\(Suggestions.phrase(close, quoted: true)); \(takes)")
        }
        var valid = arguments.filter { Self.envelopeKeys.contains($0.key) }
        for argument in declared {
            guard let value = arguments[argument.name], value != .null else {
                if argument.isRequired { throw .invalid("\(name) needs \(argument.name): \(argument.kind.text)") }
                if let value = argument.defaultValue { valid[argument.name] = value }
                continue
            }
            guard let accepted = argument.kind.accept(value) else { throw .invalid(argument.problem(with: value)) }
            valid[argument.name] = accepted
        }
        return valid
    }
}

extension ControlCommands {
    /// The commands by name: one, or one per kind of server (`app`).
    private static let byName: [String: [ControlCommandSpec]] = Dictionary(grouping: all, by: \.name)

    /// The command `server` answers by that name (nil: none): `app` is three commands, the watch's,
    /// phone-os's and watch-os's.
    package static func spec(_ name: String, on server: ControlServerKind) -> ControlCommandSpec? {
        byName[name]?.first { $0.servers.contains(server) }
    }

    /// Whether any server answers a command by that name.
    package static func isKnown(_ name: String) -> Bool { byName[name] != nil }

    /// The commands `server` answers.
    package static func answered(by server: ControlServerKind) -> [ControlCommandSpec] { all.filter { $0.servers.contains(server) } }
}
