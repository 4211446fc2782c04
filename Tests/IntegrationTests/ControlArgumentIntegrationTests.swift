import Connectivity
import Control
import Glibc
import JSONText
import PairTesting
import Testing

/// Generated from the catalogue, like `ControlCatalogueTests`: for every command each real daemon
/// answers, each declared argument is sent with a value of the wrong type and one out of its range
/// (the other arguments valid), a required one is left out, and a key the command does not take is
/// added — every one answered with one line naming the argument, exit status 2, before any handler.
@Suite struct ControlArgumentIntegrationTests {
    /// A value `kind` takes (the first it allows).
    static func valid(_ kind: ControlArgumentKind) -> JSONValue {
        switch kind {
        case let .int(range): .integer(Int64(range.lowerBound))
        case let .intChoice(values): .integer(Int64(values[0]))
        case let .number(range): .number(range.lowerBound)
        case let .string(bytes): .string(String(repeating: "x", count: max(1, bytes.lowerBound)))
        case let .choice(values): .string(values[0])
        case .format(.flightID): .string("00000000-0000-4000-8000-000000000000")
        case .format(.month): .string("2026-11")
        case .format(.base64): .string("AAEC")
        case .bool: .bool(false)
        case .object: .object([:])
        case .array: .array([])
        }
    }

    /// Values `kind` refuses: one of the wrong JSON type, and (where a value can be) one out of range.
    static func invalid(_ kind: ControlArgumentKind) -> [(what: String, value: JSONValue)] {
        switch kind {
        case let .int(range):
            let outside = range.upperBound < Int.max ? range.upperBound + 1 : range.lowerBound - 1
            return [("wrong type", .string("1")), ("out of range", .integer(Int64(outside)))]
        case let .intChoice(values): return [("wrong type", .string(String(values[0]))), ("out of range", .integer(Int64(values.max()! + 1)))]
        case let .number(range):
            return [("wrong type", .string("1")), ("out of range", .number(range.upperBound + max(1, abs(range.upperBound))))]
        case let .string(bytes):
            var values: [(String, JSONValue)] = [("wrong type", .integer(1))]
            if bytes.lowerBound > 0 { values.append(("too short", .string(""))) }
            if bytes.upperBound < 100_000 { values.append(("too long", .string(String(repeating: "x", count: bytes.upperBound + 1)))) }
            return values
        case .choice, .format: return [("wrong type", .integer(1)), ("out of range", .string("no-such-value"))]
        case .bool: return [("wrong type", .string("true"))]
        case .object: return [("wrong type", .array([])), ("malformed typed JSON", .object(["at": .object(["$date": .string("yesterday")])]))]
        case .array: return [("wrong type", .object([:]))]
        }
    }

    /// Each refusal that is not one line, exit 2, naming what was wrong.
    static func misses(_ server: ControlServerKind, home: DeviceHome, socketPath: String? = nil) throws -> [String] {
        var misses: [String] = []
        func expectRefused(_ spec: ControlCommandSpec, _ arguments: [String: JSONValue], naming name: String, _ what: String) throws {
            let client = try ControlClient(home: home, socketPath: socketPath, timeoutMilliseconds: 30_000)
            do {
                _ = try client.call(ControlRequest(command: spec.name, arguments: arguments))
                misses.append("\(spec.name) \(name) \(what): accepted")
            } catch {
                if error.exitStatus != 2 || error.message.contains("\n") || !error.message.contains(name) {
                    misses.append("\(spec.name) \(name) \(what): exit \(error.exitStatus) \(error.message)")
                }
            }
        }
        for spec in ControlCommands.answered(by: server) {
            let declared = spec.arguments
            var base: [String: JSONValue] = [:]
            for argument in declared where argument.isRequired { base[argument.name] = valid(argument.kind) }
            for argument in declared {
                for (what, value) in invalid(argument.kind) {
                    try expectRefused(spec, base.merging([argument.name: value]) { $1 }, naming: argument.name, what)
                }
                if argument.isRequired {
                    try expectRefused(spec, base.filter { $0.key != argument.name }, naming: argument.name, "missing")
                }
            }
            try expectRefused(spec, base.merging(["notAnArgument": .integer(1)]) { $1 }, naming: "notAnArgument", "not taken")
        }
        return misses
    }

    @Test(arguments: [ControlServerKind.watch, .phone])
    func everyArgumentOfEveryCommandIsCheckedByTheDaemon(server: ControlServerKind) throws {
        try withPair(tag: "args-\(server.rawValue)") { pair in
            let home = try pair.startAlone(server)
            let misses = try Self.misses(server, home: home)
            #expect(misses.isEmpty, "\(misses)")
            // Nothing of it ran: the watch recorded nothing, the phone stored nothing.
            let status = try ControlClient(home: home).call(ControlCommands.Status().request)
            #expect(status["outstandingUserInfoTransfers"] == .integer(0))
        }
    }

    @Test(arguments: [ControlServerKind.phoneOS, .watchOS])
    func theOSesCheckTheirArgumentsToo(server: ControlServerKind) throws {
        try withPair(tag: server == .phoneOS ? "args-os" : "args-wos") { pair in
            let home = try pair.startAlone(server)
            let misses = try Self.misses(server, home: home, socketPath: home.osControlSocketPath)
            #expect(misses.isEmpty, "\(misses)")
        }
    }

    /// A sample of the failures the catalogue declares, as the daemons give them.
    @Test func theDeclaredFailuresAreTheOnesGiven() throws {
        try withPair(tag: "args-errors") { pair in
            try pair.startWatch()
            let home = DeviceHome(path: pair.watchHome, role: .watch)
            var cancel = ControlCommands.Cancel()
            cancel.transferId = 999
            var null = ControlCommands.TransferUserInfo()
            null.payload = .object(["a": .null])
            for (request, spec) in [
                (cancel.request, ControlCommands.Cancel.spec), (null.request, ControlCommands.TransferUserInfo.spec),
                (ControlCommands.RunStop().request, ControlCommands.RunStop.spec),
            ] {
                do throws(ControlError) {
                    _ = try ControlClient(home: home).call(request)
                    Issue.record("\(spec.name) succeeded")
                } catch {
                    let declared = spec.errors.contains { $0.exitStatus == error.exitStatus && $0.code == error.wcError?.code }
                    #expect(declared, "\(spec.name): \(error.exitStatus) \(error.wcError.map { "\($0.code)" } ?? "") \(error.message) is not declared")
                }
            }
        }
    }

    /// `runway` checks a request against the same declarations before it sends it: the same line, exit 2,
    /// even from a daemon that cannot answer (stopped).
    @Test func theClientChecksAsTheDaemonDoes() throws {
        try withPair(tag: "args-client") { pair in
            try pair.startWatch()
            let home = DeviceHome(path: pair.watchHome, role: .watch)
            let bad = ControlCommands.Record { $0.count = 0 }.request
            var fromDaemon: ControlError?
            do throws(ControlError) { _ = try ControlClient(home: home).call(bad) } catch { fromDaemon = error }
            #expect(fromDaemon?.message == "count must be a whole number from 1 to 1000000" && fromDaemon?.exitStatus == 2)
            let pid = try #require(pair.watch?.pid)
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            var fromClient: ControlError?
            do throws(ControlError) { _ = try ControlClient(home: home, timeoutMilliseconds: 3000).send(bad) } catch { fromClient = error }
            #expect(fromClient?.message == fromDaemon?.message && fromClient?.exitStatus == 2)
        }
    }
}
