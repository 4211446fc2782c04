import Connectivity
import Control
import JSONText
import Testing

/// The router checks every request's arguments against the catalogue before the handler runs: a
/// missing required argument, a wrong type, a value out of range, an argument the command does not
/// take — one line each, exit 2, worded from the declaration; a valid request gets its defaults.
@Suite struct ControlArgumentTests {
    typealias Record = ControlCommands.Record

    func router(_ server: ControlServerKind) -> ControlRouter {
        let router = ControlRouter(server: server)
        router.testCommandsEnabled = true
        for spec in ControlCommands.answered(by: server) { router.on(spec) { _, _ in } }
        return router
    }

    /// The refusal `arguments` get, or nil if they pass.
    func refusal(_ server: ControlServerKind, _ command: String, _ arguments: [String: JSONValue]) -> ControlError? {
        do {
            _ = try router(server).prepare(ControlRequest(command: command, arguments: arguments))
            return nil
        } catch {
            return error
        }
    }

    @Test func theCatalogueDeclaresEachArgumentOnceWithASummary() {
        for spec in ControlCommands.all {
            let names = spec.arguments.map(\.name)
            #expect(Set(names).count == names.count, "\(spec.name)")
            #expect(!names.contains("command") && !names.contains("role"), "\(spec.name)")
            #expect(spec.arguments.allSatisfy { !$0.summary.isEmpty }, "\(spec.name)")
        }
        // The command whose arguments differ by server is a command per server.
        #expect(ControlCommands.spec("app", on: .watch)?.arguments.first?.kind == .choice(["install", "uninstall", "foreground", "background"]))
        #expect(
            ControlCommands.spec("app", on: .phoneOS)?.arguments.first?.kind
                == .choice(["open", "close", "force-quit", "kill", "suspend", "resume", "install", "uninstall"]))
        #expect(ControlCommands.spec("app", on: .phoneOS)?.argument("version") != nil)
        #expect(ControlCommands.spec("app", on: .watchOS)?.argument("version") == nil)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let command: String
        let arguments: [String: JSONValue]
        let message: String
        init(_ command: String, _ arguments: [String: JSONValue], _ message: String) {
            self.command = command
            self.arguments = arguments
            self.message = message
        }
        var testDescription: String { "\(command) \(arguments)" }
    }

    static let bad: [Bad] = [
        // Out of range, the wrong type, a real where a whole number goes: the same line, today's words.
        .init("record", ["count": .integer(0)], "count must be a whole number from 1 to 1000000"),
        .init("record", ["count": .string("3")], "count must be a whole number from 1 to 1000000"),
        .init("record", ["count": .number(2.5)], "count must be a whole number from 1 to 1000000"),
        .init("record", ["distanceKm": .number(1001)], "distanceKm must be a number from 0.0 to 1000.0"),
        .init("record", ["endingAt": .number(1e300 * 10)], "endingAt must be a number from 978307200.0 to 4102444800.0"),
        .init("events", ["limit": .integer(1025)], "limit must be a whole number from 0 to 1024"),
        .init("events", ["follow": .string("yes")], "follow must be true or false"),
        .init("link", ["state": .string("sideways")], "state must be up or down, not 'sideways'"),
        .init("link", ["state": .integer(1)], "state must be up or down"),
        .init("fail-next", ["count": .integer(1), "code": .integer(7001)], "code must be 7017, 7014 or 7015, not '7001'"),
        .init("app", ["action": .string("open")], "action must be install, uninstall, foreground or background, not 'open'"),
        .init("transfer-userinfo", ["payload": .array([])], "payload must be a JSON object (typed JSON)"),
        .init("run-sample", ["samples": .object([:])], "samples must be a JSON array"),
        .init(
            "message", ["payload": .object(["at": .object(["$date": .string("yesterday")])])],
            #"payload: $.at.$date: "yesterday" is not an ISO 8601 time with a zone (2026-11-30T07:00:00Z)"#),
        .init("notification-add", ["id": .string(""), "inSeconds": .integer(5)], "id must be a string of 1 to 200 bytes"),
        // Missing, and not taken.
        .init("link", [:], "link needs state: up or down"),
        .init("store-limit", ["pages": .null], "store-limit needs pages: a whole number from 0 to 2147483647"),
        .init(
            "record", ["cuont": .integer(3)],
            "record does not take 'cuont' (did you mean 'count'?); it takes count, distanceKm, seed, seriesTotal, seriesStart or endingAt"),
        .init("status", ["verbose": .bool(true)], "status does not take 'verbose'; it takes no arguments"),
    ]

    @Test(arguments: bad)
    func aBadArgumentIsOneLineExitTwo(_ bad: Bad) {
        let server: ControlServerKind = ControlCommands.spec(bad.command, on: .watch) != nil ? .watch : .phone
        let error = refusal(server, bad.command, bad.arguments)
        #expect(error?.message == bad.message)
        #expect(error?.exitStatus == 2)
        #expect(error?.message.contains("\n") == false)
    }

    @Test func formatsAreCheckedAndNamed() {
        #expect(refusal(.phone, "flight", ["id": .string("12345")])?.message == "id '12345' is not a flight id (a UUID)")
        #expect(refusal(.phone, "flight", ["id": .string("0190a3c2-1b2c-7d4e-8f00-123456789abc")]) == nil)
        #expect(
            refusal(.phone, "group-set", ["view": .string("logbook"), "key": .string("2026-13"), "expanded": .bool(true)])?.message
                == "key '2026-13' is not a month like 2026-11")
        #expect(refusal(.phone, "group-set", ["view": .string("logbook"), "key": .string("2026-11"), "expanded": .bool(true)]) == nil)
    }

    @Test func aValidRequestGetsItsDefaultsAndTypedValues() throws {
        let bare = try ControlCommands.Record(request: try router(.watch).prepare(ControlRequest(command: "record")).request)
        #expect(bare.count == 1)
        #expect(bare.seed == nil)
        #expect(bare.distanceKm == nil)
        // A whole real is a whole number; the envelope's keys pass.
        let (_, checked) = try router(.watch).prepare(
            ControlRequest(command: "record", arguments: ["count": .number(3), "seed": .integer(7), "role": .string("watch")]))
        #expect(checked.arguments["count"] == .integer(3))
        let chunk = try ControlCommands.Record(request: checked)
        #expect(chunk.count == 3 && chunk.seed == 7)
        #expect(checked.arguments["role"] == .string("watch"))
        let message = try ControlCommands.Message(
            request: try router(.phone).prepare(ControlRequest(command: "message", arguments: ["payload": .object([:])])).request)
        #expect(message.replyExpected == true)
        #expect(message.timeoutMs == nil)
    }

    @Test func argumentsAreCheckedBeforeActivationAndAfterTheCommand() {
        let phone = router(.phone)
        phone.sessionIsActivated = { false }
        // Bad input is bad input, activated or not.
        #expect(throws: ControlError.self) { try phone.prepare(ControlRequest(command: "received", arguments: ["limit": .integer(0)])) }
        do {
            _ = try phone.prepare(ControlRequest(command: "received", arguments: ["limit": .integer(0)]))
        } catch {
            #expect(error.exitStatus == 2 && error.wcError == nil)
        }
        // A good request waits for activation (7004).
        do {
            _ = try phone.prepare(ControlRequest(command: "received", arguments: ["limit": .integer(5)]))
            Issue.record("ran before activation")
        } catch {
            #expect(error.wcError?.code == .sessionNotActivated)
        }
        // An unknown command is refused as such, whatever its arguments.
        #expect(refusal(.phone, "record", ["count": .integer(0)])?.message == "the phone does not know the command 'record'")
    }

    @Test func theClientBuildsRequestsFromTheCommandsValue() throws {
        var record = ControlCommands.Record()
        record.count = 3
        record.seed = nil
        record.distanceKm = 5.5
        #expect(record.request.json == .object(["command": .string("record"), "count": .integer(3), "distanceKm": .number(5.5)]))
        #expect(try ControlCommands.Record(request: try record.request.validated(on: .watch)).count == 3)
        record.count = 0
        #expect(throws: ControlError.self) { try record.request.validated(on: .watch) }
    }
}
