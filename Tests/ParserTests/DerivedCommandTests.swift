import Connectivity
import Control
import JSONText
import Posix
@testable import RunWayCLI
import Testing

/// A `runway` command derived from its declaration (`ControlCommand.cli`, issue 43): its flags, synopsis,
/// help and completion come from the type, with no CLI code of its own.
@Suite struct DerivedCommandTests {
    enum Sample: ControlCommand {
        typealias Reply = StoreLimitReply
        static let limit = ControlArgument<Int>("limit", .int(1...100), default: 10, "list at most this many")
        static let timeoutMs = ControlArgument<Int?>("timeoutMs", .int(1...600_000), "how long to wait, in ms")
        static let all = ControlArgument<Bool>("all", .bool, default: false, "every one")
        static let state = ControlArgument<String>("state", .choice(["up", "down"]), required: true, "the link's state")
        static let spec = ControlCommandSpec(Self.self, "sample-list", [.phone, .watch], arguments: [limit, timeoutMs, all, state], "samples")
        static let cli: ControlCommandCLI? = ControlCommandCLI { device, other in "Lists the \(device)'s samples from the \(other)." }
    }

    @Test func theFlagsSynopsisAndHelpComeFromTheType() throws {
        let commands = DerivedCLI.commands(for: Sample.self)
        #expect(commands.map(\.path) == [["phone", "sample-list"], ["watch", "sample-list"]])
        let phone = try #require(commands.first)
        #expect(phone.synopsis == "--home P [--limit N] [--timeout-ms N] [--all] --state up|down [--json]")
        #expect(phone.specs.map(\.name) == ["home", "limit", "timeout-ms", "all", "state", "json"])
        #expect(phone.specs.map(\.valueName) == ["DIR", "N", "N", nil, "up|down", nil])
        #expect(phone.summary == "Lists the phone's samples from the watch.")
        #expect(commands[1].summary == "Lists the watch's samples from the phone.")
        let help = CLI.help(phone)
        #expect(help.hasPrefix("usage: runway phone sample-list --home P [--limit N] [--timeout-ms N] [--all] --state up|down [--json] [--pair NAME]"))
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
        #expect(try DerivedCLI.value("5", for: Sample.limit.spec) == .integer(5))
        #expect(try DerivedCLI.value("five", for: Sample.limit.spec) == .string("five"))
        #expect(throws: ControlError.self) { try Sample.spec.validate(["limit": .string("five"), "state": .string("up")], on: .phone) }
        #expect(try DerivedCLI.value("down", for: Sample.state.spec) == .string("down"))
        #expect(DerivedCLI.flagName("timeoutMs") == "timeout-ms")
    }

    /// `context-get` is declared so: `runway phone context get` is derived, and placed beside `context set`.
    @Test func contextGetIsDerivedAndListedBesideItsNeighbours() throws {
        for device in ["phone", "watch"] {
            let index = try #require(CLI.commands.firstIndex { $0.path == [device, "context", "get"] })
            #expect(CLI.commands[index - 1].path == [device, "context", "set"])
            #expect(CLI.commands[index].synopsis == "--home \(device == "phone" ? "P" : "W") [--json]")
            #expect(CLI.commands[index].specs.map(\.name) == ["home", "json"])
        }
        #expect(!CLI.handWritten.contains { $0.path.last == "get" && $0.path.dropLast().last == "context" })
    }
}
