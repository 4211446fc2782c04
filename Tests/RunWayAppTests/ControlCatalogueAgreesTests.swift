import Connectivity
import Control
import RunWayApp
import Testing

/// The control catalogue (`Control`, which knows no app types) spells some of the app's limits as
/// literals: they must be the app's.
@Suite struct ControlCatalogueAgreesTests {
    func kind(_ argument: some ControlArgumentDeclaration) -> ControlArgumentKind { argument.spec.kind }

    @Test func theRunTargetsRangesAreGPWSs() {
        #expect(kind(ControlCommands.RunStart.targetPace) == .number(GPWSTarget.paceRange))
        #expect(kind(ControlCommands.RunStart.zoneLow) == .number(GPWSTarget.zoneRange))
        #expect(kind(ControlCommands.RunStart.zoneHigh) == .number(GPWSTarget.zoneRange))
    }

    @Test func aRecordingEndsWithinTheFlightsTimeRange() {
        #expect(kind(ControlCommands.Record.endingAt) == .number(FlightLimits.earliestTime...FlightLimits.latestTime))
    }

    @Test func theChoicesAreTheAppsCases() {
        #expect(kind(ControlCommands.LanguageSet.language) == .choice(AppLanguage.allCases.map(\.rawValue) + ["system"]))
        #expect(kind(ControlCommands.Groups.view) == .choice(GroupExpansion.View.allCases.map(\.rawValue)))
        #expect(kind(ControlCommands.Events.limit) == .int(0...DelegateTrace.defaultCapacity))
    }
}
