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
        let directory = makeTemporaryDirectory("och")
        let database = try Database(path: directory + "/os.sqlite")
        try Migrator.migrate(database, SystemServices.migrations)
        let system = try SystemServices(database: database, loop: EventLoop(), logger: .silent)
        try system.clock.set(t0, frozen: true)
        return system
    }

    static let workout = HealthWorkoutItem(
        uuid: "0A0B0C0D-0000-4000-8000-000000000001", activityType: "running", startDate: t0 - 600, endDate: t0, duration: 600, metadata: ["k": "v"])

    /// One of each, as the app's modules make them.
    static let samples: [any OSRequest] = [
        ClockRequest.Show(), ClockRequest.SetTime(at: t0, frozen: true), ClockRequest.Advance(seconds: 60), ClockRequest.Reset(),
        NotificationRequest.Replace(
            remove: ["a"], add: [UserNotificationCenter.Request(id: "b", fireAt: t0 + 60, title: "t", body: "b", language: "ko")]),
        NotificationRequest.RemoveDelivered(ids: nil), NotificationRequest.RemoveDelivered(ids: ["a"]), NotificationRequest.List(),
        NotificationRequest.Add(id: "c", inSeconds: 5, body: nil), NotificationRequest.Open(id: "d"), NotificationRequest.TakeResponses(),
        HealthRequest.Save(workout: workout), HealthRequest.Workouts(), HealthRequest.Authorize(share: ["x"], read: []),
        HealthRequest.Session(), HealthRequest.SetSession(session: nil),
        HealthRequest.SetSession(session: HealthSessionItem(activityType: "running", locationType: 2, startDate: t0)),
    ]

    @Test func everyRequestIsASampleAndItsPropertiesAreItsCommandsArguments() throws {
        let sampled = Set(Self.samples.map { ObjectIdentifier(type(of: $0)) })
        for type in SystemServices.requests { #expect(sampled.contains(ObjectIdentifier(type)), "no sample of \(type)") }
        for sample in Self.samples {
            let command = type(of: sample).spec
            // The stored properties and the typed keys declared beside them name the same arguments.
            let properties = Set(Mirror(reflecting: sample).children.compactMap(\.label))
            guard case .object(let arguments) = try JSONValueEncoder().encode(sample) else {
                Issue.record("\(type(of: sample)) does not encode to an object")
                continue
            }
            for server in command.servers {
                #expect(Set(command.arguments(on: server).map(\.name)) == properties, "\(command.name) on \(server)")
                #expect(throws: Never.self, "\(command.name) on \(server)") { _ = try command.validate(arguments, on: server) }
            }
        }
    }

    @Test func everyOSServiceCommandIsAnsweredByTheOSAndInTheCatalogue() {
        // The catalogue's OS services' commands are the OS's requests, one for one.
        #expect(SystemServices.requests.map { ObjectIdentifier($0) } == ControlCommands.osServiceCommands.map { ObjectIdentifier($0) })
        for type in SystemServices.requests {
            #expect(ControlCommands.spec(type.spec.name)?.servers == type.spec.servers, "\(type.spec.name) is not in the catalogue")
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
        #expect(try channel.call(HealthRequest.Save(workout: Self.workout)).inserted)
        #expect(try !channel.call(HealthRequest.Save(workout: Self.workout)).inserted)
        #expect(try channel.call(HealthRequest.Workouts()).workouts.map(\.uuid) == [Self.workout.uuid])
        var bad = Self.workout
        bad.uuid = "lower-case"
        #expect(Self.refused { _ = try channel.call(HealthRequest.Save(workout: bad)) })
        let past = UserNotificationCenter.Request(id: "p", fireAt: Self.t0 - 1, title: "t", body: "b", language: "")
        #expect(Self.refused { _ = try channel.call(NotificationRequest.Replace(remove: [], add: [past])) })
        #expect(Self.refused { _ = try channel.call(ClockRequest.Advance(seconds: -5)) })

        let future = UserNotificationCenter.Request(id: "f", fireAt: Self.t0 + 30, title: "t", body: "b", language: "ko")
        _ = try channel.call(NotificationRequest.Replace(remove: [], add: [future]))
        #expect(try channel.call(NotificationRequest.List()).pending.map(\.id) == ["f"])
        let advanced = try channel.call(ClockRequest.Advance(seconds: 60))
        #expect(advanced.delivered?.map(\.id) == ["f"])
        #expect(try channel.call(NotificationRequest.List()).delivered.map(\.id) == ["f"])
    }

    @Test func anEventReachesTheAppInProcessAndAsTheAttachedConnectionCarriesIt() throws {
        let system = try Self.system()
        var observed: [String] = []
        system.observe(NotificationDelivered.self) { observed.append($0.id) }
        var relayed: [JSONValue] = []
        system.onPublished.append { relayed.append($0) }
        _ = try system.call(NotificationRequest.Add(id: "e", inSeconds: 10, body: nil))
        _ = try system.call(ClockRequest.Advance(seconds: 11))
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
        #expect(throws: OSRequestRefused.self) { try NotificationRequest.Replace(remove: [], add: [request]).check() }
        let decoded = try JSONValueDecoder().decode(
            NotificationRequest.Replace.self, from: try JSONValueEncoder().encode(NotificationRequest.Replace(remove: ["r"], add: [request])))
        #expect(decoded.add == [request] && decoded.remove == ["r"])
    }
}
