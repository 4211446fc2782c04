import Testing

@testable import Posix

/// "Did you mean": typos within a few edits, words cut short, nothing for a word far from all of them —
/// and the parser that every binary uses names the option it guessed.
@Suite struct SuggestionsTests {
    let commands = ["logbook", "status", "flight", "delete", "ui", "alerts", "language", "link"]

    @Test func typosAreFoundByEditDistance() {
        #expect(Suggestions.closest(to: "logbok", among: commands) == ["logbook"])  // a letter missing
        #expect(Suggestions.closest(to: "stauts", among: commands) == ["status"])  // two swapped
        #expect(Suggestions.closest(to: "fligth", among: commands) == ["flight"])
        #expect(Suggestions.closest(to: "deleet", among: commands) == ["delete"])
        #expect(Suggestions.closest(to: "cout", among: ["count", "distance", "seed", "json"]) == ["count"])
        #expect(Suggestions.closest(to: "LOGBOOK", among: commands).isEmpty, "the same word in capitals is not a suggestion of itself")
    }

    @Test func aWordCutShortNamesWhatItStarts() {
        #expect(Suggestions.closest(to: "lo", among: commands) == ["logbook"])
        #expect(Suggestions.closest(to: "l", among: commands).isEmpty, "one letter is too little to go on")
        #expect(Suggestions.closest(to: "la", among: commands) == ["language"])
    }

    @Test func nothingCloseMeansNoSuggestion() {
        #expect(Suggestions.closest(to: "xyzzy", among: commands).isEmpty)
        #expect(Suggestions.closest(to: "", among: commands).isEmpty)
        #expect(Suggestions.closest(to: "logbok", among: []).isEmpty)
        // A pasted paragraph is not compared at length.
        #expect(Suggestions.closest(to: String(repeating: "a", count: 10_000), among: commands).isEmpty)
    }

    @Test func nearestFirstAndAtMostThree() {
        let found = Suggestions.closest(to: "lin", among: ["link", "line", "lint", "linen", "lion"])
        #expect(found.count == 3)
        #expect(found.allSatisfy { ["line", "link", "lint", "linen"].contains($0) })
    }

    @Test func editDistanceCountsASwapAsOneEdit() {
        func distance(_ a: String, _ b: String) -> Int {
            Suggestions.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars), cap: 10)
        }
        #expect(distance("ab", "ba") == 1)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("", "abc") == 3)
        #expect(distance("same", "same") == 0)
        #expect(Suggestions.editDistance(Array("abcdef".unicodeScalars), Array("uvwxyz".unicodeScalars), cap: 2) == 3)
    }

    @Test func theParserSuggestsAnOption() {
        let specs: [ArgumentSpec] = [.option("count", "N", "how many"), .flag("json", "JSON"), .flag("secret", "hidden", hidden: true)]
        #expect(throws: UsageError.self) { try Arguments.parse(["--cout", "3"], specs: specs) }
        do {
            _ = try Arguments.parse(["--cout", "3"], specs: specs)
        } catch {
            #expect(error.message == "unknown option --cout (did you mean --count?)")
            #expect(error.suggestions == ["--count"])
        }
        do {
            _ = try Arguments.parse(["-json"], specs: specs)
        } catch {
            #expect(error.suggestions == ["--json"])
        }
        do {
            _ = try Arguments.parse(["--secre"], specs: specs)
        } catch {
            #expect(error.suggestions.isEmpty, "a hidden option is never suggested")
            #expect(error.message == "unknown option --secre")
        }
    }
}
