import Connectivity
import JSONText
import Posix

// MARK: - How `runway` offers a command: declared with it, derived by the CLI

/// The CLI of a command (issue 53): its words, where they go, what they set, its help paragraph, its
/// topic in `runway --help`, and the options only the CLI reads — the rest (each argument's flag or
/// positional, its value's syntax, the synopsis, the help's options, completion, the man entry) is
/// derived from the command's arguments by `runway`, which also renders its reply for a person.
///
///     static let cli: ControlCommandCLI? = ControlCommandCLI(.session, [.device(["transfers"])]) { device, other in
///         "The outstanding userInfo transfers …"
///     }
package struct ControlCommandCLI: Sendable {
    /// Each way `runway` offers the command (`link down`, `link up`: one command, two forms).
    package var forms: [Form]
    /// Where `runway --help` lists it.
    package var topic: CLITopic
    /// Options of the CLI's own, beside the arguments: what its output reads (`--no-charts`, `--out F`).
    package var options: [ArgumentSpec]
    /// Whether `--json` prints the reply (true) or — a command that only confirms, whose words are its
    /// output — `{"ok":true,"output":[its lines]}`.
    package var repliesInJSON: Bool
    /// The synopsis after the words, where the one derived cannot say it (one of two flags: `message
    /// (--json-file F | --data-file F [--out F])`); `HOME` stands for the device's `[--home P]`.
    package var synopsis: String?
    /// Words of the CLI's own after the command's, beside the arguments' positionals: what its
    /// preparation reads (`link schedule FILE`).
    package var positionals: [String] = []
    /// A flag's bad value is one line naming the command (`run start: --target-pace must be …`), as the
    /// commands of the link, the live run and the clock always said it, not a usage error and its help.
    package var oneLineErrors = false

    /// One way to say the command: `runway phone|watch WORDS` on each device that answers it
    /// (`.device`), or `runway WORDS` with the device implied (`.top`, and then `runway DEVICE WORDS` as an
    /// alias when `alias` is set), or `runway WORDS` over one or both devices of a pair (`.pair`: the clock).
    package struct Form: Sendable {
        package enum Place: Sendable, Equatable {
            /// `runway phone|watch WORDS`, on the devices answering the command, or only `on` one.
            case device(on: DeviceRole?)
            /// `runway WORDS`, to `device`; also `runway DEVICE WORDS` when `alias`.
            case top(DeviceRole, alias: Bool)
            /// `runway WORDS`, to one device (`--home`), or both of a pair.
            case pair
        }
        package var words: [String]
        package var place: Place
        /// The arguments the words set (`link down`: state down); `.null`: one the form does not offer
        /// (`app open` has no `--version`), left unset.
        package var sets: [String: JSONValue]
        /// The help's paragraph, for the device (`phone`) and its counterpart (`watch`).
        package var help: @Sendable (_ device: String, _ other: String) -> String

        package static func device(
            _ words: [String], on device: DeviceRole? = nil, sets: [String: JSONValue] = [:],
            _ help: @escaping @Sendable (_ device: String, _ other: String) -> String
        ) -> Form {
            Form(words: words, place: .device(on: device), sets: sets, help: help)
        }

        package static func top(
            _ words: [String], _ device: DeviceRole, alias: Bool = false, sets: [String: JSONValue] = [:],
            _ help: @escaping @Sendable (_ device: String, _ other: String) -> String
        ) -> Form {
            Form(words: words, place: .top(device, alias: alias), sets: sets, help: help)
        }

        package static func pair(_ words: [String], _ help: @escaping @Sendable (_ device: String, _ other: String) -> String) -> Form {
            Form(words: words, place: .pair, sets: [:], help: help)
        }
    }

    package init(
        _ topic: CLITopic, _ forms: [Form], options: [ArgumentSpec] = [], repliesInJSON: Bool = true, synopsis: String? = nil, oneLineErrors: Bool = false,
        positionals: [String] = []
    ) {
        self.topic = topic
        self.forms = forms
        self.options = options
        self.repliesInJSON = repliesInJSON
        self.synopsis = synopsis
        self.oneLineErrors = oneLineErrors
        self.positionals = positionals
    }

    /// One form on each device that answers it: `runway phone|watch WORDS`, the help the same for both.
    package init(
        _ topic: CLITopic, _ words: [String], options: [ArgumentSpec] = [], repliesInJSON: Bool = true, synopsis: String? = nil, oneLineErrors: Bool = false,
        help: @escaping @Sendable (_ device: String, _ other: String) -> String
    ) {
        self.init(topic, [.device(words, help)], options: options, repliesInJSON: repliesInJSON, synopsis: synopsis, oneLineErrors: oneLineErrors)
    }
}

/// The topics of `runway --help`, in its order: what a user of any app looks for first, RunWay's own app last.
package enum CLITopic: String, Sendable, CaseIterable {
    case pairs, devices, apps, session, os, link, clock, scenarios, tool, runway

    /// The heading in `runway --help`.
    package var title: String {
        switch self {
        case .pairs: "pairs"
        case .devices: "devices"
        case .apps: "apps (yours or RunWay's)"
        case .session: "the session (WatchConnectivity)"
        case .os: "the OS (notifications, Health, the app's life)"
        case .link: "the link between the devices"
        case .clock: "the clock"
        case .scenarios: "scenarios and views"
        case .tool: "this tool"
        case .runway: "RunWay's own app"
        }
    }
}

/// How `runway` offers one argument of a command with a derived CLI: a flag named after the argument
/// (`timeoutMs`: `--timeout-ms N`; a `bool` that defaults to false: `--all`), unless it says otherwise.
package struct ControlArgumentCLI: Sendable {
    /// The flag's name; nil: the argument's, in kebab case.
    package var flag: String?
    /// The value's name in the synopsis (`N`, `KM`, `F`); nil: from the kind.
    package var valueName: String?
    /// Given as the `n`th word after the command's words (0 the first), not as a flag.
    package var position: Int?
    /// Not offered (set by the command's words, or not the CLI's to set).
    package var hidden = false
    /// How the flag's text becomes the argument's value.
    package var syntax: ControlValueSyntax = .plain
    /// The values `runway` offers, where it offers fewer than the kind allows (`--mode pace|heart-rate`).
    package var values: [String]?
    /// The help's line for it; nil: the argument's summary, kind and default.
    package var help: String?
    /// What a value it does not take is told, given the text; nil: `LABEL must be KIND, not 'TEXT'`.
    package var refusal: (@Sendable (String) -> String)?

    package static func option(
        _ flag: String? = nil, _ valueName: String? = nil, syntax: ControlValueSyntax = .plain, values: [String]? = nil, help: String? = nil
    ) -> ControlArgumentCLI {
        ControlArgumentCLI(flag: flag, valueName: valueName, syntax: syntax, values: values, help: help)
    }

    package static func positional(
        _ valueName: String, at position: Int = 0, syntax: ControlValueSyntax = .plain, refusal: (@Sendable (String) -> String)? = nil
    ) -> ControlArgumentCLI {
        ControlArgumentCLI(valueName: valueName, position: position, syntax: syntax, refusal: refusal)
    }

    package static let hidden = ControlArgumentCLI(hidden: true)

    /// `--json-file F`: a command's JSON object, read from a file (`-` for stdin).
    package static let jsonObjectFile = option("json-file", "F", syntax: .jsonObjectFile, help: "a file holding one JSON object (- for stdin)")
}

/// How a flag's text becomes an argument's value, where it is not the value itself (a number, a string):
/// the CLI reads each syntax (`RunWayCLI`'s `ValueSyntax`); the command names it.
package enum ControlValueSyntax: Sendable, Equatable {
    /// The text, as the kind takes it (a number parsed, a string as it is).
    case plain
    /// A flag that sets the argument to false (`--no-reply`: `replyExpected` false).
    case setsFalse
    /// A file holding one JSON object (`-` for stdin): the object (`--json-file F`).
    case jsonObjectFile
    /// A file's path, made absolute (`transfer-file PATH`).
    case path
    /// A pace, `M:SS` per km: seconds (`--target-pace 5:30`; `0` for none, where the kind allows it).
    case pace
    /// A heart-rate zone `LOW-HIGH`, its low end (`--target-hr 140-160`) or its high end.
    case zoneLow, zoneHigh
    /// A duration, `[Nd][Nh][Nm][Ns]`: seconds (`7d`, `1d12h`).
    case duration
    /// A moment, ISO 8601 with an offset: seconds since 1970.
    case instant
}
