import Posix
import Control

/// `runway completion bash|zsh|fish` and `runway man`: shell completion and a man page, from the same
/// command list and argument specs as `--help`, so they can never disagree with it.
enum DocumentationCommands {
    static let completion = CLI.Command(
        path: ["completion"], synopsis: "bash|zsh|fish",
        summary: """
            Prints a completion script for the shell: `source <(runway completion bash)` in ~/.bashrc,
            `source <(runway completion zsh)` in ~/.zshrc (after compinit, or it loads it), or
            `runway completion fish | source` in ~/.config/fish/config.fish. Completes command words, options,
            and values: languages (ko en ja system), modes (pace heart-rate), weekdays, error codes, update
            answers; registered pair names (--pair, up, down, unpair, top); from the running phone, flight ids
            (phone flight, phone delete) and the Logbook's months (--toggle, --expand), and from either device
            the transfers that can still be cancelled and the quarantined ids — asked for half a second at
            most, and only of a device that runs (a phone with more than 1000 flights lists none); paths after
            --home, --phone, --watch (directories), --json-file, --out, --svg (files). zsh and fish show a
            description beside each. The scripts complete phone-daemon, watch-agent and phone-os too: their
            options, and the values of --save-path, --reminders, --gpws, --failed-transfer, --log-level and
            --log-format.
            """,
        specs: [], positionals: 1,
        run: { parsed in
            guard let shell = parsed.positionals.first, let script = CompletionScripts.script(shell) else {
                let named = parsed.positionals.first.map { OneLine.quote($0) } ?? "no shell"
                throw UsageError("say which shell: bash, zsh or fish (not \(named))")
            }
            Output.out(script)
            return 0
        })

    static let manual = CLI.Command(
        path: ["man"], synopsis: "",
        summary: "Prints the runway(1) man page (roff): `runway man | man -l -`.",
        specs: [], positionals: 0,
        run: { _ in
            Output.out(manPage())
            return 0
        })

    static let all = [completion, manual]

    // MARK: - man

    static func manPage() -> String {
        let escape = Roff.text
        var lines = [
            ".TH RUNWAY 1 \"\" \"RunWay Pair \(RunWayPair.version)\" \"User Commands\"",
            ".SH NAME", "runway \\- the command-line client of RunWay Pair, a simulated iPhone + Apple Watch running app",
            ".SH SYNOPSIS", ".B runway", "COMMAND [options]",
            ".SH DESCRIPTION",
            escape(
                "Talks to a phone-daemon and a watch-agent over their control sockets. `runway pair` makes and remembers a pair; with one pair registered, --home may be left out."
            ),
            ".SH COMMANDS",
        ]
        for command in CLI.commands {
            lines += [
                ".TP", ".B " + escape("runway \(command.path.joined(separator: " ")) \(command.synopsis)"),
                escape(command.summary.split(separator: "\n").joined(separator: " ")),
            ]
            for spec in CLI.effectiveSpecs(command) where !spec.hidden {
                lines += [".br", escape("  --\(spec.name)\(spec.valueName.map { " " + $0 } ?? ""): \(spec.help)")]
            }
        }
        // The same examples as each command's --help (`Examples`).
        lines.append(".SH EXAMPLES")
        for command in CLI.commands {
            lines += [".TP", ".B " + escape("runway \(command.path.joined(separator: " "))")] + Roff.verbatim(Examples.examples(for: command))
        }
        // The daemons' control protocol, from the catalogue (as docs/protocol.md is).
        lines.append(".SH CONTROL PROTOCOL")
        lines.append(
            escape(
                "Each daemon's control socket takes JSON requests {\"command\":NAME, ...its arguments}; runway builds them and checks them first, as the daemon does (bad input: one line, exit 2)."
            ))
        for spec in ControlCommands.all {
            lines += [".TP", ".B " + escape("\(spec.name) (\(spec.programs))"), escape(spec.summary + ".")]
            for line in spec.arguments.map(\.line) + ["reply: " + spec.replyText, "fails: " + spec.allErrors.map(\.line).joined(separator: "; ")] {
                lines += [".br", escape("  " + line)]
            }
        }
        lines += [
            ".SH EXIT STATUS", "0 success; 1 the operation failed (a daemon not running, an unknown flight); 2 invalid usage or input.",
            ".SH ENVIRONMENT",
            ".TP", ".B RUNWAY_STATE_DIR", "where the pair registry lives (else $XDG_STATE_HOME/runway, else ~/.local/state/runway)",
            ".TP", ".B RUNWAY_PAIR", "the registered pair to use when --home is left out",
            ".TP", ".B RUNWAY_CONTROL_TIMEOUT_MS", "how long to wait for a daemon's next answer (default 60000)",
            ".SH SEE ALSO", "phone-daemon \\-\\-help, watch-agent \\-\\-help",
        ]
        return lines.joined(separator: "\n")
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
