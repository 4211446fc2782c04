import Foundation
@testable import RunWayCLI
import Storage
import Testing

/// What a scenario reads from the stores while an app may have been killed at any moment: a store the
/// app had created but not yet given its tables (killed in its first start) holds nothing, rather than
/// failing the `expect` step (seen in ScenarioTests under load: "no such table: flights").
@Suite struct ScenarioStoreReadingTests {
    @Test func aStoreWithoutItsTablesYetHoldsNothing() throws {
        let pair = try ScenarioPair(Scenario(steps: [.jetsam(.phone)]))
        defer { pair.removeHomes() }
        try FileManager.default.createDirectory(atPath: (pair.phoneAppStore as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let empty = try Database(path: pair.phoneAppStore)
        empty.close()
        #expect(try pair.storedFlightIDs() == [])
        #expect(try pair.receivedIDs(on: .phone) == [])
    }
}
