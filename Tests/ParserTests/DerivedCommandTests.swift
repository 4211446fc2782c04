import Connectivity
import Control
import JSONText
import Posix
@testable import RunWayCLI
import Testing

/// A `runway` command derived from its declaration (`ControlCommand.cli`, issues 43 and 53): its flags, synopsis,
/// help and completion come from the type, with no CLI code of its own.
@Suite struct DerivedCommandTests {
    struct Sample: ControlCommand {
        typealias Reply = StoreLimitReply
        @Argument(.int(1...100), "list at most this many") var limit = 10
        @Argument(.int(1...600_000), "how long to wait, in ms") var timeoutMs: Int?
        @Argument(.bool, "every one") var all = false
        @Argument(.choice(["up", "down"]), "the link's state") var state: String
        static let spec = ControlCommandSpec(Self.self, "sample-list", [.phone, .watch], "samples")
        static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["sample-list"]) { device, other in "Lists the \(device)'s samples from the \(other)."
        }
        static func argument(_ name: String) -> ControlArgumentSpec { spec.argument(name)! }
    }

    @Test func theFlagsSynopsisAndHelpComeFromTheType() throws {
        let commands = DerivedCLI.commands(for: Sample.self)
        #expect(commands.map(\.path) == [["phone", "sample-list"], ["watch", "sample-list"]])
        let phone = try #require(commands.first)
        #expect(phone.synopsis == "[--home P] [--limit N] [--timeout-ms N] [--all] --state up|down [--json]")
        #expect(phone.specs.map(\.name) == ["home", "limit", "timeout-ms", "all", "state", "json"])
        #expect(phone.specs.map(\.valueName) == ["DIR", "N", "N", nil, "up|down", nil])
        #expect(phone.summary == "Lists the phone's samples from the watch.")
        #expect(commands[1].summary == "Lists the watch's samples from the phone.")
        let help = CLI.help(phone)
        #expect(help.hasPrefix("usage: runway phone sample-list [--home P] [--limit N] [--timeout-ms N] [--all] --state up|down [--json] [--pair NAME]"))
        #expect(help.contains("--limit N"))
        #expect(help.contains("list at most this many: a whole number from 1 to 100 (default 10)"))
        #expect(help.contains("--state up|down"))
        #expect(help.contains("the link's state: up or down"))
    }

    @Test func itsCompletionComesFromTheType() {
        let commands = DerivedCLI.commands(for: Sample.self)
        #expect(Completion.answer(["phone", "sam"], commands: commands).text == "words\nsample-list\tLists the phone's samples from the watch")
        let options = Completion.answer(["phone", "sample-list", "--"], commands: commands).text.split(separator: "\n").map { $0.split(separator: "\t")[0] }
        #expect(options == ["words", "--home", "--limit", "--timeout-ms", "--all", "--state", "--json", "--pair", "--help"])
        #expect(Completion.answer(["phone", "sample-list", "--state", ""], commands: commands).text == "words\nup\ndown")
    }

    @Test func aFlagsTextIsTheArgumentsJSONForTheCatalogueToCheck() throws {
        let arguments = Sample.declaredArguments()
        let limit = try #require(arguments.first { $0.spec.name == "limit" })
        let state = try #require(arguments.first { $0.spec.name == "state" })
        #expect(try ValueSyntax.read("5", limit, label: "--limit", words: "sample-list") == .integer(5))
        #expect(throws: UsageError.self) { try ValueSyntax.read("five", limit, label: "--limit", words: "sample-list") }
        #expect(throws: ControlError.self) { try Sample.spec.validate(["limit": .string("five"), "state": .string("up")]) }
        #expect(try ValueSyntax.read("down", state, label: "--state", words: "sample-list") == .string("down"))
        #expect(throws: UsageError.self) { try ValueSyntax.read("sideways", state, label: "--state", words: "sample-list") }
        #expect(DerivedCLI.flagName("timeoutMs") == "timeout-ms")
    }

    /// `context-get` is declared so: `runway phone context get` is derived, and listed beside `context set`,
    /// under the session's topic (issue 53: the help by topic).
    @Test func contextGetIsDerivedAndListedBesideItsNeighbours() throws {
        for device in ["phone", "watch"] {
            let index = try #require(CLI.commands.firstIndex { $0.path == [device, "context", "get"] })
            #expect(CLI.commands[index + 1].path == [device, "context", "set"])
            #expect(CLI.commands[index].topic == .session)
            #expect(CLI.commands[index].synopsis == "[--home \(device == "phone" ? "P" : "W")] [--json]")
            #expect(CLI.commands[index].specs.map(\.name) == ["home", "json"])
        }
        #expect(!CLI.handWritten.contains { $0.path.last == "get" && $0.path.dropLast().last == "context" })
    }

    /// Issue 53 item 4: `runway --help` lists the commands by topic, what anyone's app needs first and
    /// RunWay's own app last; each command's optional flags are written as optional (`[--home P]`: one
    /// registered pair names it).
    @Test func theHelpIsByTopicWithRunWaysOwnAppLast() throws {
        let usage = CLI.usage()
        let headings = usage.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.hasSuffix(":") }.map(String.init)
        #expect(headings == CLITopic.allCases.map { $0.title + ":" })
        #expect(headings.last == "RunWay's own app:")
        let lines = usage.split(separator: "\n").map(String.init)
        let kill = try #require(lines.firstIndex { $0.hasPrefix("  runway phone app kill ") })
        let logbook = try #require(lines.firstIndex { $0.hasPrefix("  runway phone logbook ") })
        let runwayHeading = try #require(lines.firstIndex(of: "RunWay's own app:"))
        #expect(kill < runwayHeading && runwayHeading < logbook)
        #expect(lines[kill] == "  runway phone app kill [--home P] [--json]")
        // Every command is listed once, under its topic.
        #expect(lines.filter { $0.hasPrefix("  runway ") }.count == CLI.commands.count)
    }

    /// Issue 53 item 4: wherever a registered pair can name the home (`--pair`), `--home` is optional and
    /// written so, in `runway --help` and in the command's usage line — `runway dump` wrote `--home H`.
    @Test func aHomeAPairCanNameIsWrittenAsOptional() throws {
        for command in CLI.commands where CLI.effectiveSpecs(command).contains(where: { $0.name == "pair" }) {
            for line in [command.synopsis, CLI.fullSynopsis(command)] {
                #expect(!line.split(separator: " ").contains("--home"), "runway \(command.path.joined(separator: " ")) \(line)")
            }
        }
        let dump = try #require(CLI.commands.first { $0.path == ["dump"] })
        #expect(CLI.help(dump).hasPrefix("usage: runway dump [--home H] [--limit N] [--json] [--pair NAME]\n"))
    }

    /// Issue 53 item 4: `runway --help` lists `runway link …` first, then its aliases `runway watch link …`.
    @Test func theLinkCommandsComeBeforeTheirWatchAliases() throws {
        let lines = CLI.usage().split(separator: "\n").map(String.init)
        let lastLink = try #require(lines.lastIndex { $0.hasPrefix("  runway link ") })
        let firstAlias = try #require(lines.firstIndex { $0.hasPrefix("  runway watch link ") })
        #expect(lastLink < firstAlias)
        #expect(lines.filter { $0.hasPrefix("  runway watch link ") }.count == lines.filter { $0.hasPrefix("  runway link ") }.count)
    }
}
