import JSONText
import Posix
import PropertyLists

/// A GPWS warning raised during a run: one per transition into `SINK RATE` or `OVERSPEED`. Alerts travel
/// inside their flight (the userInfo's `alerts`, an array of dictionaries), so they share its transfer,
/// its dedup and its receive transaction on the phone, and are deleted with it.
///
/// Declared once, here: its property-list dictionary, its row in `alerts` and its `--json` form are its
/// `Codable` fields (`RecordFormat`), its keys the property names.
public struct FlightAlert: Equatable, Sendable, Codable {
    public var id: String
    /// Seconds since 1970, on the recording device's clock.
    public var at: Double
    public var type: GPWSStatus
    public var mode: FlightMode
    /// What the decision read: pace in s/km (pace mode) or heart rate in bpm.
    public var value: Double
    /// `6:00` or `140-160`.
    public var target: String

    public init(id: String, at: Double, type: GPWSStatus, mode: FlightMode, value: Double, target: String) {
        self.id = id
        self.at = at
        self.type = type
        self.mode = mode
        self.value = value
        self.target = target
    }

    /// What the fields' types do not say: `at` is a moment (a property-list date, ISO 8601 in JSON), and
    /// JSON shows `value` to one decimal.
    static let format = RecordFormat(moments: ["at"], decimals: ["value": 1])

    /// A run's alert ids are derived from the run id and the alert's place, so a watch that replays its
    /// run's samples after a relaunch makes the same alerts with the same ids.
    public static func id(runID: String, index: Int, at: Double) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in runID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        var generator = SeededGenerator(seed: hash ^ UInt64(index))
        return Identifier.uuidV7(milliseconds: UInt64(max(0, at * 1000)), counter: UInt16(index % 4096), using: &generator)
    }

    /// The fields in declaration order, as JSON values.
    var fields: [(key: String, value: JSONValue)] { Self.format.fields(of: self) }

    // MARK: - Property list

    public var propertyList: PropertyListValue { Self.format.propertyList(fields) }

    /// Nil if `value` is not an alert dictionary with every key of the right kind.
    init?(propertyList value: PropertyListValue) {
        guard let alert = Self.format.decode(FlightAlert.self, fromPropertyList: value) else { return nil }
        self = alert
    }

    public static func decodeList(_ value: PropertyListValue) -> [FlightAlert]? {
        guard case let .array(items) = value else { return nil }
        var alerts: [FlightAlert] = []
        alerts.reserveCapacity(items.count)
        for item in items {
            guard let alert = FlightAlert(propertyList: item) else { return nil }
            alerts.append(alert)
        }
        return alerts
    }

    /// Why `alerts` are out of range for a flight, or nil.
    static func problem(_ alerts: [FlightAlert]) -> String? {
        guard alerts.count <= GPWS.maximumAlerts else { return "has more than \(GPWS.maximumAlerts) alerts" }
        for (index, alert) in alerts.enumerated() {
            if !FlightLimits.isFlightID(alert.id) { return "alert \(index) has an id that is not an upper-case UUID" }
            if !(alert.at >= FlightLimits.earliestTime && alert.at < FlightLimits.latestTime) {
                return "alert \(index) has a time outside 2001-01-01 to 2100-01-01"
            }
            if alert.type == .clear { return "alert \(index) is of type CLEAR, which is not a warning" }
            if !(alert.value >= 0 && alert.value <= FlightLimits.slowestPace) { return "alert \(index) has a value out of range" }
            if alert.target.utf8.count > 32 { return "alert \(index) has a target longer than 32 bytes" }
        }
        return nil
    }

    // MARK: - JSON

    /// `{"id":…,"flightId":…,"runId":…,"at":"…Z","type":"SINK RATE","mode":"heartRate","value":118,"target":"140-160"}`:
    /// its fields in order, its flight's id after its own (`runId`: RunWay's older name for it).
    public func writeJSON(to writer: inout JSONWriter, flightID: String) {
        writer.beginObject()
        for (index, field) in fields.enumerated() {
            writer.key(field.key, first: index == 0)
            Self.format.write(field, to: &writer)
            if index == 0 {
                writer.key("flightId"); writer.writeString(flightID)
                writer.key("runId"); writer.writeString(flightID)
            }
        }
        writer.endObject()
    }
}
