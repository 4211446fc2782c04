import Connectivity
import Control
import Testing

/// A command declared as one type (`ControlCommand`, issue 43): the catalogue reads its declaration, a
/// handler registers by the type and returns its reply, and the router's start-up checks hold for it.
@Suite struct ControlCommandTypeTests {
    /// Declared here, in no family's list: not in the catalogue.
    struct Stray: ControlCommand {
        typealias Reply = StoreLimitReply
        static let spec = ControlCommandSpec(Self.self, "stray", [.phone], "a command the catalogue does not list")
    }

    @Test func everyDeclaredTypeIsInTheCatalogueWithItsReply() {
        for command in ControlCommands.declared {
            for server in command.spec.servers {
                let spec = ControlCommands.spec(command.spec.name, on: server)
                #expect(spec != nil, "\(command.spec.name) on \(server)")
                let reply = String(describing: replyType(of: command))
                #expect(spec?.replyTypes[server] == (reply == "JSONReply" ? nil : reply), "\(command.spec.name) on \(server)")
            }
        }
        #expect(ControlCommands.spec("store-limit", on: .watch)?.replyTypes[.watch] == "StoreLimitReply")
        #expect(ControlCommands.spec("context-get", on: .phone)?.needsActivatedSession == true)
        // `app` is three commands, one per kind of server, each with its own reply.
        #expect(ControlCommands.spec("app", on: .watch)?.replyTypes[.watch] == "WatchAppReply")
        #expect(ControlCommands.spec("app", on: .phoneOS)?.replyTypes[.phoneOS] == "OSStatusReply")
        #expect(ControlCommands.spec("app", on: .phone) == nil)
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
        #expect(!ControlCommands.isKnown("stray"))
        #expect(router.registrationProblem(Stray.spec, replacing: false) == "stray is not a phone command in ControlCommands")
    }

    /// A command's value is its request: the arguments set are sent, those not set left for the daemon's
    /// defaults; the router checks it and hands the handler the value back, typed and defaulted.
    @Test func aCommandsValueIsItsRequestAndTheHandlersArguments() throws {
        let request = ControlCommands.Transfers { $0.limit = 5 }.request
        #expect(request.command == "transfers")
        #expect(request.arguments == ["limit": .integer(5)])
        #expect(ControlCommands.Transfers().request.arguments.isEmpty)
        let router = ControlRouter(server: .watch)
        router.on(ControlCommands.Transfers.self) { _ in
            TransfersReply(outstandingUserInfoTransfers: 0, outstanding: [], finishedSinceStart: 0, recentlyFinished: [])
        }
        #expect(throws: ControlError.self) { try router.prepare(ControlCommands.Transfers { $0.limit = 0 }.request) }
        let prepared = try router.prepare(ControlCommands.Transfers().request)
        // What the handler reads: the command itself, decoded from the checked request.
        #expect(try ControlCommands.Transfers(request: prepared.request).limit == 100)
        // An argument that may be absent reads as nil; one set reads as set.
        let quarantine = try ControlCommands.QuarantineRemove(request: try ControlCommands.QuarantineRemove { $0.all = true }.request.validated(on: .phone))
        #expect(quarantine.id == nil && quarantine.all)
    }

    /// The arguments are the stored `@Argument`s, in their order, named by their properties.
    @Test func theArgumentsAreTheStoredProperties() {
        #expect(ControlCommands.Message.spec.arguments.map(\.name) == ["payload", "timeoutMs", "replyExpected"])
        let message = ControlCommands.Message.spec.arguments
        #expect(message.map(\.isRequired) == [true, false, false])
        #expect(message.map(\.defaultValue) == [nil, nil, .bool(true)])
        #expect(message[1].kind == .int(1...600_000))
        #expect(ControlCommands.Status.spec.arguments.isEmpty)
    }

    /// Arguments several commands take are declared once (`@ArgumentGroup`, as swift-argument-parser's
    /// `@OptionGroup`): `run-start` and `run-replay` both take the run's target, whose arguments are each
    /// command's own — in the catalogue, in the request (beside the others, not in an object of their own),
    /// and in the value the handler reads.
    @Test func aGroupsArgumentsAreTheCommandsOwn() throws {
        let target = ["mode", "targetPace", "zoneLow", "zoneHigh"]
        #expect(ControlCommands.RunStart.spec.arguments.map(\.name) == target)
        #expect(ControlCommands.RunReplay.spec.arguments.map(\.name) == target + ["seed", "distanceKm"])
        #expect(ControlCommands.RunReplay.spec.argument("zoneHigh")?.kind == .number(40...220))
        let replay = ControlCommands.RunReplay {
            $0.mode = "heart-rate"
            $0.zoneLow = 140
            $0.zoneHigh = 160
            $0.seed = 7
        }
        #expect(replay.request.arguments == ["mode": .string("heart-rate"), "zoneLow": .number(140), "zoneHigh": .number(160), "seed": .integer(7)])
        let decoded = try ControlCommands.RunReplay(request: try replay.request.validated(on: .watch))
        #expect(decoded.mode == "heart-rate" && decoded.zoneLow == 140 && decoded.zoneHigh == 160 && decoded.targetPace == nil && decoded.seed == 7)
        #expect(decoded.start.request.arguments == ["mode": .string("heart-rate"), "zoneLow": .number(140), "zoneHigh": .number(160)])
        // Left out, the target's defaults are the catalogue's, filled in by the router as any argument's.
        #expect(try ControlCommands.RunStart(request: try ControlCommands.RunStart().request.validated(on: .phone)).mode == "pace")
    }
}
