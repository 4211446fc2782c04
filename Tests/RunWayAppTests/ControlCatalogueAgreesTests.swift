import Connectivity
import Control
import RunWayApp
import Testing

/// The control catalogue (`Control`, which knows no app types) spells some of the app's limits as
/// literals: they must be the app's.
@Suite struct ControlCatalogueAgreesTests {
    func kind<Command: ControlCommand>(_ command: Command.Type, _ name: String) -> ControlArgumentKind? { Command.spec.argument(name)?.kind }

    @Test func theRunTargetsRangesAreGPWSs() {
        #expect(kind(ControlCommands.RunStart.self, "targetPace") == .number(GPWSTarget.paceRange))
        #expect(kind(ControlCommands.RunStart.self, "zoneLow") == .number(GPWSTarget.zoneRange))
        #expect(kind(ControlCommands.RunStart.self, "zoneHigh") == .number(GPWSTarget.zoneRange))
    }

    @Test func aRecordingEndsWithinTheFlightsTimeRange() {
        #expect(kind(ControlCommands.Record.self, "endingAt") == .number(FlightLimits.earliestTime...FlightLimits.latestTime))
    }

    @Test func theChoicesAreTheAppsCases() {
        #expect(kind(ControlCommands.LanguageSet.self, "language") == .choice(AppLanguage.allCases.map(\.rawValue) + ["system"]))
        #expect(kind(ControlCommands.Groups.self, "view") == .choice(GroupExpansion.View.allCases.map(\.rawValue)))
        #expect(kind(ControlCommands.Events.self, "limit") == .int(0...DelegateTrace.defaultCapacity))
    }
}
