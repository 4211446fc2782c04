import Control
import Posix

/// `runway --help`, a group's and a command's help: the commands by topic (`CLITopic`), each with its
/// usage line.
extension CLI {
    static func help(_ command: Command) -> String {
        let subcommands = commands.filter { $0.path.count > command.path.count && $0.path.starts(with: command.path) }
        let under = subcommands.isEmpty ? "" : "\ncommands under it:\n" + commandLines(subcommands) + "\n"
        return """
            usage: runway \(command.path.joined(separator: " ")) \(fullSynopsis(command))

            \(command.summary)

            options:
            \(Arguments.describe(effectiveSpecs(command) + [.flag("help", "show this help")]))
            \(under)
            \(Examples.helpSection(for: command))
            """
    }

    /// The synopsis with the options every command of its kind takes: `--pair NAME` wherever `--home` is,
    /// `--json` everywhere (`effectiveSpecs`) — so that a usage line names every option its help lists.
    static func fullSynopsis(_ command: Command) -> String {
        var synopsis = command.synopsis
        let names = Set(effectiveSpecs(command).filter { !$0.hidden }.map(\.name))
        // The options it names already: `--json-file` is not `--json`.
        let named = Set(synopsis.split { !($0.isLetter || $0.isNumber || $0 == "-") }.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) })
        if names.contains("pair") && !named.contains("pair") { synopsis += " [--pair NAME]" }
        if names.contains("json") && !named.contains("json") { synopsis += " [--json]" }
        return synopsis.trimmingWhitespace
    }

    static func commandLines(_ list: [Command]) -> String {
        list.map { "  runway \($0.path.joined(separator: " ")) \($0.synopsis)" }.joined(separator: "\n")
    }

    /// `runway clock --help`: the group's commands and nothing else.
    static func groupUsage(_ prefix: [String], _ list: [Command]) -> String {
        let words = prefix.joined(separator: " ")
        return """
            usage: runway \(words) COMMAND [options]

            commands:
            \(commandLines(list))

            `runway \(words) COMMAND --help` describes one.
            """
    }

    static func usage() -> String {
        """
        usage: runway COMMAND [options]

        The command-line client of RunWay Pair, a simulated iPhone + Apple Watch pair that runs your apps
        (or RunWay, the running app it ships with). `runway pair --phone P --watch W` makes (and remembers)
        a pair, `runway up` starts both devices (`--phone-app PATH --watch-app PATH` for yours). With one pair
        registered, --home may be left out; with several, add --pair NAME. Every command takes --json.
        `runway phone` alone lists the phone's commands; `runway help COMMAND` describes one.

        \(topicLines(commands))

        `runway COMMAND --help` describes one; `source <(runway completion bash)` (or zsh, fish) completes
        them. Exit status: 0 success, 1 the operation failed (a daemon not running, an unknown flight),
        2 invalid usage or input.
        """
    }

    /// The commands under their topics' headings, in `CLITopic`'s order.
    static func topicLines(_ list: [Command]) -> String {
        CLITopic.allCases.compactMap { topic in
            let listed = list.filter { $0.topic == topic }
            return listed.isEmpty ? nil : "\(topic.title):\n" + commandLines(listed)
        }.joined(separator: "\n\n")
    }
}

extension CLI.Command {
    /// The command, listed under `topic` in `runway --help`.
    func `in`(_ topic: CLITopic) -> Self {
        var command = self
        command.topic = topic
        return command
    }
}
