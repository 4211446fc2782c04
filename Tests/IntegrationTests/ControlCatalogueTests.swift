import Connectivity
import Control
import PairTesting
import Testing

/// Every command of the control catalogue reaches a handler in the real daemon that declares it: asked
/// with no arguments, each one is answered — with a result or with its own complaint about what is
/// missing — never with "does not know" or "not available". Each daemon runs alone, so no flight moves
/// between the devices (the runs a bare `record` makes wait in the watch's outbox).
@Suite struct ControlCatalogueTests {
    /// Commands left out: `attach` turns the connection into a UI (it is the UI tests' subject).
    static let notAskedBare: Set<String> = ["attach"]

    func unanswered(_ server: ControlServerKind, home: DeviceHome, socketPath: String? = nil) throws -> [String] {
        var missing: [String] = []
        for spec in ControlCommands.answered(by: server) where !Self.notAskedBare.contains(spec.name) {
            let client = try ControlClient(home: home, socketPath: socketPath, timeoutMilliseconds: 30_000)
            do {
                _ = try client.call(ControlRequest(command: spec.name))
            } catch {
                if error.message.contains("does not know") || error.message.contains("is not available") {
                    missing.append("\(spec.name): \(error.message)")
                }
            }
        }
        return missing
    }

    @Test(arguments: [ControlServerKind.watch, .phone])
    func everyDeclaredCommandIsHandledByItsDaemon(server: ControlServerKind) throws {
        try withPair(tag: "catalogue-\(server.rawValue)") { pair in
            // One daemon alone: the runs a bare `record` or `run-stop` makes stay on that device.
            let home = try pair.startAlone(server)
            let missing = try unanswered(server, home: home)
            #expect(missing.isEmpty, "\(missing)")
            // A command of the other device is refused by name, in one line, exit status 2.
            let other = server == .watch ? "logbook" : "record"
            do throws(ControlError) {
                _ = try ControlClient(home: home).call(ControlRequest(command: other))
                Issue.record("\(other) was answered by the \(server.rawValue)")
            } catch {
                #expect(error.message == "the \(server.rawValue) does not know the command '\(other)'")
                #expect(error.exitStatus == 2)
            }
        }
    }

    @Test(arguments: [ControlServerKind.phoneOS, .watchOS])
    func theOSesAnswerTheirCommands(server: ControlServerKind) throws {
        try withPair(tag: server == .phoneOS ? "catalogue-os" : "catalogue-wos") { pair in
            let home = try pair.startAlone(server)
            let missing = try unanswered(server, home: home, socketPath: home.osControlSocketPath)
            #expect(missing.isEmpty, "\(missing)")
        }
    }
}
