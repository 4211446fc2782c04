import Foundation
import JSONText
import PairTesting
import Testing

/// Help a person can read and mistakes a person can recover from (issue 28, items 1 and 2): a group's
/// help lists its commands only; a usage error is its one line and where the help is; every usage line
/// names every option its help lists; "did you mean" for commands, subcommands and options, in text and
/// in the JSON error.
@Suite struct HelpAndMistakesTests {
    @Test func groupHelpListsItsCommandsAndNothingElse() throws {
        let blurb = try runTool(["--help"]).stdout.split(separator: "\n").dropFirst(2).first.map(String.init) ?? "?"
        for (group, member) in [(["clock"], "runway clock advance"), (["watch", "run"], "runway watch run replay"), (["appstore"], "runway appstore show")] {
            let help = try runTool(group + ["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("usage: runway \(group.joined(separator: " ")) COMMAND"), "\(help.stdout)")
            #expect(help.stdout.contains(member))
            #expect(!help.stdout.contains(blurb), "group help repeats the top-level text: \(group)")
            // Only its own commands.
            let listed = help.stdout.split(separator: "\n").filter { $0.hasPrefix("  runway ") }
            #expect(listed.allSatisfy { $0.hasPrefix("  runway \(group.joined(separator: " ")) ") }, "\(listed)")
            #expect(help.stdout.split(separator: "\n").count <= listed.count + 6)
        }
    }

    @Test func aUsageErrorIsItsLineAndWhereTheHelpIs() throws {
        let cases: [([String], String, String)] = [
            (["phone", "logbook", "--toggle", "nope"], "runway", "runway phone logbook: --toggle takes a month like 2026-11, not 'nope'"),
            (["watch", "record", "--count", "0"], "runway", "runway watch record: --count must be a whole number from 1 to 1000000, not '0'"),
            (["--home", "/tmp/x", "--app-version", "1.4a"], "phone-daemon", "phone-daemon: --app-version: '1.4a' is not a version"),
            (["--home", "/tmp/x", "--gpws", "maybe"], "watch-agent", "watch-agent: --gpws must be fixed or legacy, not 'maybe'"),
            (["--home", "/tmp/x", "--save-path", "later"], "phone-os", "phone-os: --save-path must be immediate or ui-drain, not 'later'"),
        ]
        for (arguments, binary, first) in cases {
            let result = try runTool(arguments, binary: binary)
            #expect(result.status == 2, "\(arguments)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(binary) \(arguments): \(result.stderr)")
            #expect(lines.first?.hasPrefix(first) == true, "\(lines)")
            let command = binary == "runway" ? "runway " + arguments.prefix(2).joined(separator: " ") : binary
            #expect(lines.last == "try '\(command) --help'")
            #expect(result.stdout.isEmpty)
        }
    }

    /// Each usage line — `runway X --help`'s and the three daemons' — names every option the help lists.
    @Test func everyUsageLineIsComplete() throws {
        func check(_ help: String, _ what: String) {
            let paragraphs = help.components(separatedBy: "\n\n")
            let usage = paragraphs.first ?? ""
            guard let options = paragraphs.first(where: { $0.hasPrefix("options:") }) else {
                Issue.record("\(what): no options section")
                return
            }
            for line in options.split(separator: "\n").dropFirst() {
                guard let name = line.split(separator: " ").first, name.hasPrefix("--"), name != "--help" else { continue }
                #expect(
                    usage.contains(name + " ") || usage.contains(name + "]") || usage.contains(name + "=") || usage.hasSuffix(name),
                    "\(what): the usage line lacks \(name): \(usage)")
            }
        }
        for binary in ["phone-daemon", "watch-agent", "phone-os"] {
            check(try runTool(["--help"], binary: binary).stdout, binary)
        }
        let listing = try runTool(["--help"]).stdout.split(separator: "\n").filter { $0.hasPrefix("  runway ") }
        #expect(listing.count > 50)
        for line in listing {
            let words = line.split(separator: " ").dropFirst().prefix { word in
                !(word.hasPrefix("-") || word.hasPrefix("[") || word.hasPrefix("(") || word.contains("|") || word.first!.isUppercase)
            }.map(String.init)
            check(try runTool(words + ["--help"]).stdout, words.joined(separator: " "))
        }
    }

    @Test func didYouMeanForCommandsSubcommandsAndOptions() throws {
        let cases: [([String], String, String)] = [
            (["phone", "logbok"], "runway: unknown command 'phone logbok' (did you mean 'phone logbook'?)", "try 'runway phone --help'"),
            (["fone", "status"], "runway: unknown command 'fone status' (did you mean 'phone status'?)", "try 'runway --help'"),
            (["watch", "logbook"], "runway: unknown command 'watch logbook' (did you mean 'phone logbook'?)", "try 'runway watch --help'"),
            (
                ["phone", "quarantine", "remov", "3"], "runway: unknown command 'phone quarantine remov 3' (did you mean 'phone quarantine remove'?)",
                "try 'runway phone quarantine --help'"
            ),
            (["watch", "record", "--cout", "3"], "runway watch record: unknown option --cout (did you mean --count?)", "try 'runway watch record --help'"),
            (["phone", "logbook", "-json"], "runway phone logbook: unknown option -json (did you mean --json?)", "try 'runway phone logbook --help'"),
            (["xyzzy"], "runway: unknown command 'xyzzy'", "try 'runway --help'"),
        ]
        for (arguments, first, last) in cases {
            let result = try runTool(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.split(separator: "\n").map(String.init) == [first, last], "\(arguments)")
        }
        // The same in the JSON error, for scripts: one line, the guesses as a list.
        for (arguments, guesses) in [
            (["phone", "logbok", "--json"], ["phone logbook"]), (["watch", "record", "--cout", "3", "--json"], ["--count"]),
            (["xyzzy", "--json"], []),
        ] {
            let result = try runTool(arguments)
            #expect(result.status == 2)
            #expect(result.stderr.split(separator: "\n").count == 1)
            let error = try JSONValue(parsing: Array(result.stderr.utf8))["error"]
            #expect(error?["name"]?.stringValue == "usage")
            #expect((error?["didYouMean"]?.arrayValue ?? []).compactMap(\.stringValue) == guesses, "\(result.stderr)")
        }
        // A group named without a command: what to do next, not "unknown".
        let bare = try runTool(["phone", "--home", "/tmp"])
        #expect(bare.status == 2)
        #expect(bare.stderr == "runway: 'runway phone' needs a command after it\ntry 'runway phone --help'\n")
    }

    /// `runway watch link …` is `runway link …`: the same help, the same checks.
    @Test func watchLinkIsAnAliasOfLink() throws {
        for state in ["down", "up"] {
            let alias = try runTool(["watch", "link", state, "--help"])
            #expect(alias.status == 0)
            #expect(alias.stdout.contains("The same as runway link \(state)."))
        }
        let bad = try runTool(["watch", "link", "fail-next", "x", "--home", "/tmp"])
        let original = try runTool(["link", "fail-next", "x", "--home", "/tmp"])
        #expect(bad.status == 2 && original.status == 2)
        #expect(bad.stderr == original.stderr)
        try withRunningPair(tag: "wlink") { pair in
            #expect(try runTool(["watch", "link", "down", "--home", pair.watchHome]).stdout == "link down\n")
            #expect(try pair.status("watch")["linkEnabled"]?.boolValue == false)
            try pair.record(2)
            #expect(try runTool(["watch", "link", "up", "--home", pair.watchHome]).status == 0)
            try pair.expectDrainedAndClean(stored: 2)
        }
    }
}
