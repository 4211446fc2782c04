import Control
import JSONText
import OSServices
import Posix
import Storage
import Testing
import PairTesting

/// The OS's requests, declared once: each one's properties are its command's arguments, the OS serves
/// every one where its command says, and the in-process channel answers as the OS does.
@Suite struct OSChannelTests {
    /// 2026-10-01T07:00:00Z
    static let t0 = 1_790_838_000.0

    static func system() throws -> SystemServices {
        let (_, database) = try makeTemporaryStore("och", file: "os.sqlite", SystemServices.migrations)
        let system = try SystemServices(database: database, loop: EventLoop(), logger: .silent)
        try system.clock.set(t0, frozen: true)
        return system
    }

    static let workout = HealthWorkoutItem(
        uuid: "0A0B0C0D-0000-4000-8000-000000000001", activityType: "running", startDate: t0 - 600, endDate: t0, duration: 600, metadata: ["k": "v"])

    /// One of each, as the app's modules make them.
    static let samples: [any OSRequest] = [
        ClockRequest.Show(), ClockRequest.SetTime { ($0.at, $0.frozen) = (t0, true) }, ClockRequest.Advance { $0.seconds = 60 }, ClockRequest.Reset(),
        replace(remove: ["a"], add: [UserNotificationCenter.Request(id: "b", fireAt: t0 + 60, title: "t", body: "b", language: "ko")]),
        NotificationRequest.RemoveDelivered(), NotificationRequest.RemoveDelivered { $0.ids = ["a"] }, NotificationRequest.List(),
        NotificationRequest.Add { ($0.id, $0.inSeconds) = ("c", 5) }, NotificationRequest.Open { $0.id = "d" }, NotificationRequest.TakeResponses(),
        HealthRequest.Save { $0.workout = workout }, HealthRequest.Workouts(), HealthRequest.Authorize { $0.share = ["x"] },
        HealthRequest.Session(), HealthRequest.SetSession(),
        HealthRequest.SetSession { $0.session = HealthSessionItem(activityType: "running", locationType: 2, startDate: t0) },
    ]

    static func replace(remove: [String], add: [UserNotificationCenter.Request]) -> NotificationRequest.Replace {
        NotificationRequest.Replace { ($0.remove, $0.add) = (remove, add) }
    }

    /// Each request, as the app's module sends it over `os.sock`, is a request its command accepts, and
    /// the OS reads back the same values (what `OSClient` carries is what `SystemServices` answers).
    @Test func everyRequestIsASampleAndCrossesTheSocketWhole() throws {
        let sampled = Set(Self.samples.map { ObjectIdentifier(type(of: $0)) })
        for type in SystemServices.requests { #expect(sampled.contains(ObjectIdentifier(type)), "no sample of \(type)") }
        for sample in Self.samples {
            let request = sample.request
            let validated = try request.validated(on: .phoneOS)
            func reread<Request: OSRequest>(_ sample: Request) throws -> JSONValue { try JSONValueEncoder().encode(try Request(request: validated)) }
            var sent = validated.arguments
            sent["command"] = nil
            #expect(try reread(sample) == .object(sent), "\(request.command)")
        }
    }

    @Test func everyOSServiceCommandIsAnsweredByTheOSAndInTheCatalogue() {
        // The catalogue's OS services' commands are the OS's requests, one for one.
        #expect(SystemServices.requests.map { ObjectIdentifier($0) } == ControlCommands.osServiceCommands.map { ObjectIdentifier($0) })
        for type in SystemServices.requests {
            #expect(type.spec.servers.allSatisfy { ControlCommands.spec(type.spec.name, on: $0) != nil }, "\(type.spec.name) is not in the catalogue")
        }
        // The app's calls of the OS process: none is left without its request.
        let served = Set(SystemServices.requests.map { $0.spec.name })
        for command in ControlCommands.all where command.name.hasPrefix("os-health") || command.name.hasPrefix("os-notifications") {
            #expect(served.contains(command.name), "\(command.name) has no OSRequest")
        }
    }

    @Test func theOSServesEveryRequestWhereItsCommandSays() throws {
        let system = try Self.system()
        for server in [ControlServerKind.phone, .watch, .phoneOS, .watchOS] {
            let router = ControlRouter(server: server)
            system.register(on: router)
            for type in SystemServices.requests {
                let command = type.spec
                #expect((router.handler(command.name) != nil) == command.servers.contains(server), "\(command.name) on \(server)")
            }
        }
    }

    @Test func theInProcessChannelAnswersAndRefusesAsTheOSDoes() throws {
        let system = try Self.system()
        let channel: any OSChannel = system
        #expect(channel.deviceNow == Self.t0)
        #expect(try channel.call(HealthRequest.Save { $0.workout = Self.workout }).inserted)
        #expect(try !channel.call(HealthRequest.Save { $0.workout = Self.workout }).inserted)
        #expect(try channel.call(HealthRequest.Workouts()).workouts.map(\.uuid) == [Self.workout.uuid])
        var bad = Self.workout
        bad.uuid = "lower-case"
        #expect(Self.refused { _ = try channel.call(HealthRequest.Save { $0.workout = bad }) })
        let past = UserNotificationCenter.Request(id: "p", fireAt: Self.t0 - 1, title: "t", body: "b", language: "")
        #expect(Self.refused { _ = try channel.call(Self.replace(remove: [], add: [past])) })
        #expect(Self.refused { _ = try channel.call(ClockRequest.Advance { $0.seconds = -5 }) })

        let future = UserNotificationCenter.Request(id: "f", fireAt: Self.t0 + 30, title: "t", body: "b", language: "ko")
        _ = try channel.call(Self.replace(remove: [], add: [future]))
        #expect(try channel.call(NotificationRequest.List()).pending.map(\.id) == ["f"])
        let advanced = try channel.call(ClockRequest.Advance { $0.seconds = 60 })
        #expect(advanced.delivered?.map(\.id) == ["f"])
        #expect(try channel.call(NotificationRequest.List()).delivered.map(\.id) == ["f"])
    }

    @Test func anEventReachesTheAppInProcessAndAsTheAttachedConnectionCarriesIt() throws {
        let system = try Self.system()
        var observed: [String] = []
        system.observe(NotificationDelivered.self) { observed.append($0.id) }
        var relayed: [JSONValue] = []
        system.onPublished.append { relayed.append($0) }
        _ = try system.call(NotificationRequest.Add { ($0.id, $0.inSeconds) = ("e", 10) })
        _ = try system.call(ClockRequest.Advance { $0.seconds = 11 })
        #expect(observed == ["e"])
        #expect(relayed.count == 1 && relayed.first?["event"]?.stringValue == NotificationDelivered.name)
        let decoded = try JSONValueDecoder().decode(NotificationDelivered.self, from: relayed[0])
        #expect(UserNotificationCenter.Delivered(decoded)?.id == "e")
    }

    /// Whether `body` throws a refusal (the app's API then says "invalid argument").
    static func refused(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            return error is any OSRefusal
        }
    }

    @Test func aRequestFromAnotherProcessIsCheckedBeyondItsTypes() throws {
        let long = String(repeating: "x", count: 4097)
        let request = UserNotificationCenter.Request(id: "a", fireAt: Self.t0 + 60, title: long, body: "b", language: "")
        #expect(throws: OSRequestRefused.self) { try Self.replace(remove: [], add: [request]).check() }
        let decoded = try JSONValueDecoder().decode(
            NotificationRequest.Replace.self, from: try JSONValueEncoder().encode(Self.replace(remove: ["r"], add: [request])))
        #expect(decoded.add == [request] && decoded.remove == ["r"])
    }
}
