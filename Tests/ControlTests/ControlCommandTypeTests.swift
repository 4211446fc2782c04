import Connectivity
import Control
import Testing

/// A command declared as one type (`ControlCommand`, issue 43): the catalogue reads its declaration, a
/// handler registers by the type and returns its reply, and the router's start-up checks hold for it.
@Suite struct ControlCommandTypeTests {
    /// Declared here, in no family's list: not in the catalogue.
    enum Stray: ControlCommand {
        typealias Reply = StoreLimitReply
        static let spec = ControlCommandSpec(Self.self, "stray", [.phone], "a command the catalogue does not list")
    }

    @Test func everyDeclaredTypeIsInTheCatalogueWithItsReply() {
        for command in ControlCommands.declared {
            let spec = ControlCommands.spec(command.spec.name)
            #expect(spec != nil, "\(command.spec.name)")
            for server in command.spec.servers {
                #expect(spec?.replyTypes[server] == String(describing: replyType(of: command)), "\(command.spec.name) on \(server)")
            }
        }
        #expect(ControlCommands.spec("store-limit")?.replyTypes[.watch] == "StoreLimitReply")
        #expect(ControlCommands.spec("context-get")?.needsActivatedSession == true)
    }

    func replyType<Command: ControlCommand>(of command: Command.Type) -> any ControlReply.Type { Command.Reply.self }

    @Test func aSecondRegistrationByTypeIsAStartUpError() {
        let router = ControlRouter(server: .phone)
        #expect(router.registrationProblem(ControlCommands.StoreLimit.spec, replacing: false) == nil)
        router.on(ControlCommands.StoreLimit.self) { args in StoreLimitReply(pages: Int64(args.pages)) }
        #expect(!router.unregistered.contains("store-limit"))
        #expect(
            router.registrationProblem(ControlCommands.StoreLimit.spec, replacing: false)
                == "store-limit is registered twice on the phone: use replace(_:_:) to take a command over")
    }

    /// A type left out of its family's list is not in the catalogue, and the daemon that registers it
    /// stops at start-up: it cannot be forgotten quietly.
    @Test func aTypeTheCatalogueDoesNotListCannotBeRegistered() {
        let router = ControlRouter(server: .phone)
        #expect(ControlCommands.spec("stray") == nil)
        #expect(router.registrationProblem(Stray.spec, replacing: false) == "stray is not a phone command in ControlCommands")
    }

    @Test func theTypesKeysBuildAndCheckItsRequests() throws {
        let request = ControlCommands.Transfers.request { $0[ControlCommands.Transfers.limit] = 5 }
        #expect(request.command == "transfers")
        #expect(request.arguments["limit"] == .integer(5))
        let router = ControlRouter(server: .watch)
        router.on(ControlCommands.Transfers.self) { _ in
            TransfersReply(outstandingUserInfoTransfers: 0, outstanding: [], finishedSinceStart: 0, recentlyFinished: [])
        }
        #expect(throws: ControlError.self) { try router.prepare(ControlCommands.Transfers.request { $0[ControlCommands.Transfers.limit] = 0 }) }
        let prepared = try router.prepare(ControlCommands.Transfers.request())
        // What the handler reads: the command's own keys, by name, typed and defaulted.
        let args = ControlArguments<ControlCommands.Transfers>(request: prepared.request)
        #expect(args.limit == 100)
    }
}
