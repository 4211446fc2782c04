import JSONText
import PairTesting
import Testing

/// `--json` on every command (issue 17, item 6): a command with no JSON form of its own prints
/// `{"ok":true,"output":[…]}` — its confirmation, or its script — and its errors as JSON, like the rest.
@Suite struct JSONEverywhereTests {
    func json(_ arguments: [String]) throws -> (status: Int32, value: JSONValue?, stderr: String) {
        let result = try runTool(arguments)
        return (result.status, try? JSONValue(parsing: result.stdout), result.stderr)
    }

    @Test func commandsThatOnlyConfirmSayItInJSON() throws {
        try withRunningPair(tag: "json-everywhere") { pair in
            let down = try json(["link", "down", "--home", pair.watchHome, "--json"])
            #expect(down.status == 0, "\(down.stderr)")
            #expect(down.value?["ok"]?.boolValue == true)
            #expect(down.value?["output"]?.arrayValue?.compactMap(\.stringValue) == ["link down"])
            let ids = try pair.record(3)
            let up = try json(["link", "up", "--home", pair.watchHome, "--json"])
            #expect(up.value?["output"]?.arrayValue?.compactMap(\.stringValue) == ["link up"])
            let background = try json(["watch", "app", "background", "--home", pair.watchHome, "--json"])
            #expect(background.status == 0 && background.value?["ok"]?.boolValue == true, "\(background.stderr)")
            // An error is still the JSON error on stderr, exit status kept.
            let cancel = try runTool(["watch", "cancel", "999999", "--home", pair.watchHome, "--json"])
            // No transfer ever had that id: invalid input (issue 28 tells cancel's cases apart).
            #expect(cancel.status == 2)
            #expect((try? JSONValue(parsing: cancel.stderr))?["error"]?["reason"]?.stringValue == "unknown")
            #expect((try? JSONValue(parsing: cancel.stderr))?["error"]?["message"]?.stringValue?.contains("999999") == true, "\(cancel.stderr)")
            #expect(ids.count == 3)
            try pair.expectDrainedAndClean(stored: 3)
        }
    }

    @Test func aScriptComesAsItsLines() throws {
        let completion = try json(["completion", "bash", "--json"])
        #expect(completion.status == 0)
        let lines = completion.value?["output"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(lines.contains { $0.contains("complete") }, "\(lines.prefix(5))")
        let plain = try runTool(["completion", "bash"])
        #expect(plain.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) == lines)
    }
}
