import JSONText
import Posix
import Storage

/// A flight as the Logbook holds it: the flight and its place in arrival order.
package struct StoredFlight: Equatable, Sendable {
    package var flight: Flight
    /// 1, 2, 3... in the order flights were stored.
    package var arrival: Int64

    package init(flight: Flight, arrival: Int64) {
        self.flight = flight
        self.arrival = arrival
    }
}

// MARK: - JSON

extension StoredFlight {
    /// `{"id":...,"startedAt":"2026-11-29T07:00:00Z","endedAt":...,"distanceKm":5.02,...}`
    package func writeJSON(to writer: inout JSONWriter, includeSamples: Bool = false) {
        writer.beginObject()
        writer.key("id", first: true); writer.writeString(flight.id)
        writer.key("arrival"); writer.raw(String(arrival))
        for field in Flight.fields {
            switch field.kind {
            case .id, .samples, .alerts:
                continue
            case .mode:
                writer.key(field.name); writer.writeString(flight.mode.rawValue)
            case let .time(offset):
                writer.key(field.name)
                writer.bytes.append(0x22); Timestamp.appendISO8601(flight.number(at: offset), to: &writer.bytes); writer.bytes.append(0x22)
            case let .number(offset, _, decimals):
                writer.key(field.name); writer.writeNumber(flight.number(at: offset), decimals: decimals)
            }
        }
        if includeSamples {
            writer.key("samples")
            writer.bytes.append(0x5B)
            for (index, sample) in flight.samples.enumerated() {
                if index > 0 { writer.bytes.append(0x2C) }
                writer.bytes.append(0x5B)
                writer.writeNumber(Double(sample.time), decimals: 1); writer.bytes.append(0x2C)
                writer.writeNumber(Double(sample.distance), decimals: 1); writer.bytes.append(0x2C)
                writer.writeNumber(Double(sample.pace), decimals: 1); writer.bytes.append(0x2C)
                writer.writeNumber(Double(sample.heartRate), decimals: 1)
                writer.bytes.append(0x5D)
            }
            writer.bytes.append(0x5D)
            writer.key("alerts")
            writer.bytes.append(0x5B)
            for (index, alert) in flight.alerts.enumerated() {
                if index > 0 { writer.bytes.append(0x2C) }
                alert.writeJSON(to: &writer, flightID: flight.id)
            }
            writer.bytes.append(0x5D)
        }
        writer.endObject()
    }
}
