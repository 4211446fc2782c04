import JSONText
import Posix
import PropertyLists

/// A GPWS warning raised during a run: one per transition into `SINK RATE` or `OVERSPEED`. Alerts travel
/// inside their flight (the userInfo's `alerts`, an array of dictionaries), so they share its transfer,
/// its dedup and its receive transaction on the phone, and are deleted with it.
public struct FlightAlert: Equatable, Sendable {
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

    /// A run's alert ids are derived from the run id and the alert's place, so a watch that replays its
    /// run's samples after a relaunch makes the same alerts with the same ids.
    public static func id(runID: String, index: Int, at: Double) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in runID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        var generator = SeededGenerator(seed: hash ^ UInt64(index))
        return Identifier.uuidV7(milliseconds: UInt64(max(0, at * 1000)), counter: UInt16(index % 4096), using: &generator)
    }

    // MARK: - Property list

    static let keys: Set<String> = ["id", "at", "type", "mode", "value", "target"]

    public var propertyList: PropertyListValue {
        .dictionary([
            "id": .string(id), "at": .date(at), "type": .string(type.rawValue), "mode": .string(mode.rawValue),
            "value": .real(value), "target": .string(target),
        ])
    }

    /// Nil if `value` is not an alert dictionary with every key of the right kind.
    init?(propertyList value: PropertyListValue) {
        guard let fields = value.dictionaryValue,
            let id = fields["id"]?.stringValue,
            let at = fields["at"]?.doubleValue, at.isFinite,
            let type = fields["type"]?.stringValue.flatMap(GPWSStatus.init(rawValue:)),
            let mode = fields["mode"]?.stringValue.flatMap(FlightMode.init(rawValue:)),
            let number = fields["value"]?.doubleValue, number.isFinite,
            let target = fields["target"]?.stringValue
        else { return nil }
        self.init(id: id, at: at, type: type, mode: mode, value: number, target: target)
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

    /// `{"id":…,"flightId":…,"runId":…,"at":"…Z","type":"SINK RATE","mode":"heartRate","value":118,"target":"140-160"}`
    public func writeJSON(to writer: inout JSONWriter, flightID: String) {
        writer.beginObject()
        writer.key("id", first: true); writer.writeString(id)
        writer.key("flightId"); writer.writeString(flightID)
        writer.key("runId"); writer.writeString(flightID)
        writer.key("at"); writer.bytes.append(0x22); Timestamp.appendISO8601(at, to: &writer.bytes); writer.bytes.append(0x22)
        writer.key("type"); writer.writeString(type.rawValue)
        writer.key("mode"); writer.writeString(mode.rawValue)
        writer.key("value"); writer.writeNumber(value, decimals: 1)
        writer.key("target"); writer.writeString(target)
        writer.endObject()
    }
}
