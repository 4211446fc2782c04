import JSONText
import PairTesting
import PropertyLists
import Storage
import Testing
@testable import RunWayApp
@testable import RunWayDomain

/// A `FlightAlert` is declared once (`Codable`, with its `RecordFormat`): its three forms — the
/// property-list dictionary inside its flight, its `alerts` row and its `--json` — are the ones the
/// hand-written code made, byte for byte.
@Suite struct FlightAlertFormsTests {
    static let alert = FlightAlert(
        id: "01938B2C-7A00-7000-8000-000000000001", at: 1_764_400_000.5, type: .sinkRate, mode: .heartRate, value: 118, target: "140-160")

    @Test func itsPropertyListHasADateAndRealsAsTheWatchSendsThem() {
        #expect(
            Self.alert.propertyList
                == .dictionary([
                    "id": .string(Self.alert.id), "at": .date(1_764_400_000.5), "type": .string("SINK RATE"), "mode": .string("heartRate"),
                    "value": .real(118), "target": .string("140-160"),
                ]))
        #expect(FlightAlert(propertyList: Self.alert.propertyList) == Self.alert)
    }

    @Test func itsPropertyListIsReadAsBeforeAndNothingElseIs() {
        guard case var .dictionary(fields) = Self.alert.propertyList else { return }
        // A number for a moment, an integer for a real, and members it does not declare: read as before.
        fields["at"] = .real(1_764_400_000.5)
        fields["value"] = .integer(118)
        fields["extra"] = .data([1, 2])
        #expect(FlightAlert(propertyList: .dictionary(fields)) == Self.alert)
        for (key, bad) in [
            ("value", PropertyListValue.real(.infinity)), ("at", .real(.nan)), ("type", .string("CRASH")), ("mode", .integer(1)), ("id", .integer(1)),
        ] {
            var broken = fields
            broken[key] = bad
            #expect(FlightAlert(propertyList: .dictionary(broken)) == nil, "\(key)")
        }
        fields["target"] = nil
        #expect(FlightAlert(propertyList: .dictionary(fields)) == nil)
        #expect(FlightAlert(propertyList: .array([])) == nil)
    }

    @Test func itsJSONKeepsItsOrderItsFlightAndOneDecimal() {
        var alert = Self.alert
        alert.value = 367.333
        var writer = JSONWriter()
        alert.writeJSON(to: &writer, flightID: "F")
        #expect(
            writer.string
                == #"{"id":"01938B2C-7A00-7000-8000-000000000001","flightId":"F","runId":"F","at":"2025-11-29T07:06:40Z","type":"SINK RATE","mode":"heartRate","value":367.3,"target":"140-160"}"#
        )
    }

    @Test func itsRowIsItsKeysAndReadsBack() throws {
        let (_, database) = try makeTemporaryStore("alert-row", FlightStore.migrations)
        let flights = FlightStore(database: database)
        var generator = FlightGenerator(seed: 5)
        var flight = generator.flight(distanceKm: 3, endingAt: Self.alert.at + 600)
        var second = Self.alert
        second.id = "01938B2C-7A00-7000-8000-000000000002"
        second.type = .overspeed
        second.value = 250.25
        flight.alerts = [Self.alert, second]
        let arrival = try #require(try flights.insert(flight))
        #expect(try flights.alerts(arrival: arrival) == [Self.alert, second])
        #expect(try database.scalarString("SELECT type || ' ' || value || ' ' || at FROM alerts ORDER BY seq LIMIT 1") == "SINK RATE 118.0 1764400000.5")
        var seen: [(FlightAlert, String)] = []
        try flights.forEachAlert { seen.append(($0, $1)) }
        #expect(seen.map(\.0) == [Self.alert, second] && seen.allSatisfy { $0.1 == flight.id })
    }
}
