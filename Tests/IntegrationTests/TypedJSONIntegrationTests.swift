import Foundation
import JSONText
import PairTesting
import Testing

/// Typed JSON through the binaries: a date and data sent from the watch come out of the phone's
/// `received`, `context get` and `dump` as the same `{"$date"}` / `{"$data"}` objects; malformed ones are
/// one line and exit 2 before anything is sent.
@Suite struct TypedJSONIntegrationTests {
    @Test func datesAndDataGoInAndComeOutTyped() throws {
        try withRunningPair(tag: "typed", phoneFirst: true) { pair in
            let payload =
                #"{"kind":"note","at":{"$date":"2026-11-30T21:00:00.125+09:00"},"raw":{"$data":"AAEC/w=="},"list":[{"$date":"1970-01-01T00:00:00Z"}]}"#
            let expected = try JSONValue(
                parsing: Array(
                    #"{"kind":"note","at":{"$date":"2026-11-30T12:00:00.125Z"},"raw":{"$data":"AAEC/w=="},"list":[{"$date":"1970-01-01T00:00:00.000Z"}]}"#.utf8)
            )
            let sent = try runTool(["watch", "transfer-userinfo", "--json-file", "-", "--home", pair.watchHome], stdin: payload)
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(try runTool(["watch", "context", "set", "--json-file", "-", "--home", pair.watchHome], stdin: payload).status == 0)
            try pair.waitUntilDrained(timeout: 60)
            try pair.waitUntil("the phone has the context", timeout: 30) {
                let got = try runTool(["phone", "context", "get", "--json", "--home", pair.phoneHome])
                return try JSONValue(parsing: Array(got.stdout.utf8))["receivedApplicationContext"] == expected
            }
            let received = try runTool(["phone", "received", "--json", "--home", pair.phoneHome])
            #expect(try JSONValue(parsing: Array(received.stdout.utf8)) == .array([expected]))
            // What `received` prints can be sent again as it is.
            let again = try runTool(["phone", "transfer-userinfo", "--json-file", "-", "--home", pair.phoneHome], stdin: expected.text)
            #expect(again.status == 0, "\(again.stderr)")
            // The store, read directly.
            let dump = try JSONValue(parsing: Array(try runTool(["dump", "--home", pair.phoneHome, "--json"]).stdout.utf8))
            #expect(dump["received"]?.arrayValue?.first?["userInfo"] == expected)
            #expect(dump["contexts"]?.arrayValue?.contains { $0["context"] == expected } == true)

            // Malformed: one line, exit 2, nothing queued.
            let before = try pair.outstandingTransfers()
            for bad in [#"{"at":{"$date":"yesterday"}}"#, #"{"raw":{"$data":"AAE"}}"#, #"{"at":{"$date":"2026-11-30T12:00:00Z","tz":"KST"}}"#] {
                for command in [["watch", "transfer-userinfo"], ["watch", "context", "set"], ["watch", "message"]] {
                    let result = try runTool(command + ["--json-file", "-", "--home", pair.watchHome], stdin: bad)
                    #expect(result.status == 2, "\(command) \(bad)")
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                    #expect(result.stderr.contains("$date") || result.stderr.contains("$data"))
                }
            }
            #expect(try pair.outstandingTransfers() == before)
            let report = try pair.check()
            #expect(report.isClean, "\(report.violations)")
        }
    }
}
