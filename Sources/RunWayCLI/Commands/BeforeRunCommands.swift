import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain
import TerminalViews

/// `runway phone preflight`, `runway appstore set|fail|show`, `runway phone update check|status|respond`.
enum BeforeRunCommands {
    static var all: [CLI.Command] { [preflight, appstoreSet, appstoreFail, appstoreShow, updateCheck, updateStatus, updateRespond] }

    /// Sends `command` to the phone, checked against the catalogue first; its reply.
    static func call<Command: ControlCommand>(_ parsed: ParsedArguments, _ command: Command) throws -> Command.Reply {
        try CLI.client(parsed, .phone).send(command)
    }

    static let preflight = CLI.Command(
        path: ["phone", "preflight"],
        synopsis: "--home P [--legacy] [--json]",
        summary: """
            The Pre-flight check (RunWay 1.3.2): the APPLE WATCH row — NOT PAIRED, APP NOT INSTALLED or READY;
            CHECKING while the session is still activating — and HEART RATE MODE, available exactly when the
            row is ok. Reachability is not consulted. With --legacy, RunWay 1.3.1's row: CONNECTED or NOT
            CONNECTED from reachability, with no activation guard (NOT PAIRED while activating). A VERSION line
            shows when the watch app's version differs from the phone app's.
            """,
        specs: [CLI.homeSpec, .flag("legacy", "RunWay 1.3.1's row (reachability) and its own heart-rate rule"), CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try call(
                parsed, ControlCommands.Preflight { $0.legacy = parsed.has("legacy") })
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            var lines = [
                "PRE-FLIGHT CHECK",
                "  APPLE WATCH      \(result.appleWatch.label)",
                "  HEART RATE MODE  \(result.heartRateMode.available ? "available" : "unavailable")",
            ]
            if result.versionMismatch == true {
                lines.append("  VERSION          WATCH APP \(result.watchAppVersion ?? "?") ≠ PHONE APP \(result.appVersion)")
                if let sentence = result.watchSentence { lines.append("  \(sentence)") }
            }
            Output.out(lines.joined(separator: "\n"))
            return 0
        })

    // MARK: - The simulated App Store lookup

    static let delaySpec = ArgumentSpec.option("delay-ms", "N", "the answer arrives N ms after the lookup (0-600000, default 0)")

    static let appstoreSet = CLI.Command(
        path: ["appstore", "set"],
        synopsis: "--home P (--version V [--url URL] | --json-file F) [--delay-ms N] [--json]",
        summary: """
            What the phone's App Store lookup answers from now on: a well-formed iTunes answer for version V
            (trackViewUrl URL), or the raw text of F as it is (malformed answers allowed: the update check fails
            silently on them). The phone must be running.
            """,
        specs: [
            CLI.homeSpec, .option("version", "V", "the store's version, N(.N){0,3}"), .option("url", "URL", "the trackViewUrl, used verbatim"),
            .option("json-file", "F", "the answer's raw text (- for stdin)"), delaySpec, CLI.jsonSpec,
        ],
        positionals: 0,
        run: { parsed in
            typealias StoreAnswer = ControlCommands.AppstoreSet
            var request = ControlCommands.AppstoreSet()
            switch (parsed.value("version"), parsed.value("json-file")) {
            case let (version?, nil):
                if let problem = AppVersion.problem(version) { throw ControlError.invalid("--version: \(problem)") }
                request.version = version
                request.url = parsed.value("url")
            case let (nil, path?):
                guard parsed.value("url") == nil else { throw ControlError.invalid("--url goes with --version, not with --json-file") }
                let bytes: [UInt8]
                do { bytes = path == "-" ? try SessionCLI.readStandardInput() : try Filesystem.readFile(path) } catch {
                    throw ControlError.invalid("cannot read \(path): \(error)")
                }
                request.body = String(decoding: bytes, as: UTF8.self)
            default:
                throw ControlError.invalid("give either --version V or --json-file F")
            }
            if let delay = try parsed.integer("delay-ms", range: 0...600_000) { request.delayMs = delay }
            let result = try call(parsed, request)
            Output.out(parsed.has("json") ? result.json.text : "the App Store lookup now answers \(result.answer ?? "")")
            return 0
        })

    static let appstoreFail = CLI.Command(
        path: ["appstore", "fail"],
        synopsis: "network --home P [--delay-ms N] [--json]",
        summary: "The phone's App Store lookup fails from now on (network: offline). The default before anything is set.",
        specs: [CLI.homeSpec, delaySpec, CLI.jsonSpec],
        positionals: 1,
        run: { parsed in
            guard parsed.positionals == ["network"] else {
                throw ControlError.invalid("say how the lookup fails: network (not \(OneLine.quote(parsed.positionals.first ?? "")))")
            }
            var request = ControlCommands.AppstoreFail()
            if let delay = try parsed.integer("delay-ms", range: 0...600_000) { request.delayMs = delay }
            let result = try call(parsed, request)
            Output.out(parsed.has("json") ? result.json.text : "the App Store lookup now fails (network)")
            return 0
        })

    static let appstoreShow = CLI.Command(
        path: ["appstore", "show"],
        synopsis: "--home P [--json]",
        summary: "What the phone's App Store lookup answers, the lookups made so far and the last URL asked.",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try call(parsed, ControlCommands.AppstoreShow())
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            Output.out(
                """
                answer   \(result.answer ?? "(fails: network)")
                delay    \(result.delayMs) ms
                lookups  \(result.lookups)
                last URL \(result.lastURL ?? "-")
                """)
            return 0
        })

    // MARK: - The update notice

    static let updateCheck = CLI.Command(
        path: ["phone", "update", "check"],
        synopsis: "--home P [--json]",
        summary: """
            Runs the update check now, by RunWay 1.4's rules (as a UI attaching does), waits for the answer and
            prints the outcome: skipped-today, skipped-running, failed, not-newer, update or suppressed-running.
            An alert goes to every attached UI. A diagnostic: the app itself says nothing on a failure.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try call(parsed, ControlCommands.UpdateCheck())
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            var line = result.outcome
            line += " (installed \(result.installed)"
            if let store = result.store { line += ", store \(store)" }
            if let reason = result.reason { line += ", \(reason)" }
            Output.out(line + ")")
            return 0
        })

    static let updateStatus = CLI.Command(
        path: ["phone", "update", "status"],
        synopsis: "--home P [--json]",
        summary: "The installed version, the day of the last successful check, and the update alert showing, if any.",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try call(parsed, ControlCommands.UpdateStatus())
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            Output.out(
                """
                installed        \(result.installed)
                last checked     \(result.lastCheckedAt ?? "never")
                alert            \(result.alert.map { "RunWay \($0.version) available" } ?? "none")
                """)
            return 0
        })

    static let updateRespond = CLI.Command(
        path: ["phone", "update", "respond"],
        synopsis: "update|later --home P [--json]",
        summary: """
            Answers the update alert: update prints the store's trackViewUrl as it came and dismisses the alert;
            later dismisses it. Neither touches the once-a-day check. There is no "skip this version".
            With no alert showing: exit 1.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 1,
        run: { parsed in
            let answer = parsed.positionals.first ?? ""
            guard answer == "update" || answer == "later" else {
                throw ControlError.invalid("respond with update or later, not \(OneLine.quote(answer))")
            }
            let result = try call(
                parsed, ControlCommands.UpdateRespond { $0.answer = answer })
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            Output.out(result.opened ?? "later")
            return 0
        })

    // MARK: - In `runway phone ui`

    /// The widest an alert's text runs, in display columns: a phone's alert is narrow, and a box this wide
    /// fits an 80-column terminal with the events pane's margin.
    static let alertColumns = 56

    /// The alert as a boxed block ending with its buttons in the app's language (`[업데이트] [나중에]`,
    /// `[Update] [Later]`), its text wrapped and its border aligned in display columns: Korean and
    /// Japanese characters take two.
    static func alertBox(_ event: JSONValue) -> String {
        let title = event["title"]?.stringValue ?? ""
        let message = event["message"]?.stringValue ?? ""
        // The titles the app shows (`buttonTitles`); `buttons` are the words `update respond` takes.
        let titles = (event["buttonTitles"]?.arrayValue ?? event["buttons"]?.arrayValue ?? []).compactMap(\.stringValue)
        let buttons = titles.map { "[\($0)]" }.joined(separator: " ")
        let body =
            TextWidth.wrap(title, alertColumns) + TextWidth.wrap(message, alertColumns)
            + ["(\(event["storeURL"]?.stringValue ?? ""))", buttons]  // the URL whole: it is copied
        let width = body.map(TextWidth.of).max() ?? 0
        let rule = "+" + String(repeating: "-", count: width + 2) + "+"
        return ([rule] + body.map { "| " + TextWidth.pad($0, width) + " |" } + [rule]).joined(separator: "\n")
    }
}
