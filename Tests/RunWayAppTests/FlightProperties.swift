import Control
import Connectivity
import JSONText
import Posix
import RunWayApp
import PropertyLists

/// What the phone app must do with any bytes that arrive as a userInfo: the in-place reader is never
/// looser than the general decoder and agrees with it; whatever either accepts is within `FlightLimits`;
/// the sender's validator says yes exactly when the receiver would take it; and every formatter takes
/// whatever numbers the bytes hold — valid or not — without trapping.
///
/// One definition for the libFuzzer target (`Fuzz/FrameFuzzer.swift`, built by `scripts/fuzz`) and the
/// replay test (`FlightFuzzReplayTests`). No `Testing` here, so the fuzzer can compile this file as it is.
enum FlightProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    struct Tally {
        var flights = 0
        var refused = 0
    }

    static func check(_ bytes: UnsafeRawBufferPointer, tally: inout Tally) throws(Violation) {
        let fast = Flight(encodedUserInfo: bytes)
        guard let userInfo = try? PropertyListCodec.decodeDictionary(bytes) else {
            if fast != nil { throw Violation(description: "the in-place reader took bytes the decoder refuses") }
            return
        }
        var general: Flight?
        var refusal: Flight.DecodingError?
        do {
            general = try Flight(userInfo: userInfo)
        } catch {
            refusal = error
        }
        if let fast, fast != general {
            throw Violation(description: "the in-place reader read \(fast.id) differently from the decoder (\(refusal.map { "\($0)" } ?? "equal?"))")
        }
        if let general, let problem = FlightLimits.problem(with: general) {
            throw Violation(description: "a flight out of range was accepted: \(problem)")
        }
        let senderSays = Flight.problem(inUserInfo: userInfo)
        let receiverTakes = general != nil || refusal == .notAFlight
        if (senderSays == nil) != receiverTakes {
            throw Violation(description: "the sender's validator (\(senderSays ?? "ok")) disagrees with the receiver")
        }
        if general != nil { tally.flights += 1 } else if refusal != .notAFlight { tally.refused += 1 }
        format(unchecked(userInfo))
    }

    /// The flight the dictionary's values would make with no validation at all: what a store written
    /// before the limits, or by hand, can hold.
    static func unchecked(_ userInfo: UserInfo) -> Flight {
        func number(_ key: String) -> Double { userInfo[key]?.doubleValue ?? 0 }
        return Flight(
            id: userInfo["id"]?.stringValue ?? "", startedAt: number("startedAt"), endedAt: number("endedAt"),
            distanceKm: number("distanceKm"), durationSeconds: number("durationSeconds"),
            averagePaceSecondsPerKm: number("averagePaceSecondsPerKm"), averageHeartRate: number("averageHeartRate"),
            mode: .pace, packedSamples: userInfo["samples"]?.dataValue ?? [],
            alerts: userInfo["alerts"].flatMap(FlightAlert.decodeList) ?? [])
    }

    /// Every way the daemons and the CLI format a flight. Trapping is the failure.
    static func format(_ flight: Flight) {
        var writer = JSONWriter()
        StoredFlight(flight: flight, arrival: 1).writeJSON(to: &writer, includeSamples: true)
        _ = flight.userInfo.json
        let calendar = LogbookCalendar(firstWeekday: .sunday, utcOffset: { _ in 9 * 3600 })
        _ = calendar.weekStart(of: calendar.date(of: flight.startedAt))
        _ = calendar.localTime(of: flight.endedAt)
        _ = Timestamp.iso8601(flight.durationSeconds, milliseconds: true)
        _ = FlightAnalysis(samples: flight.samples)
    }

    /// Flights to start fuzzing from: valid ones, and each numeric field at an edge or beyond it.
    static var seeds: [(name: String, bytes: [UInt8])] {
        var generator = FlightGenerator(seed: 31)
        var seeds: [(String, [UInt8])] = []
        let flight = generator.flight(distanceKm: 3, endingAt: 1.8e9)
        seeds.append(("flight", PropertyListCodec.encode(flight.userInfo)))
        let edges: [(String, WritableKeyPath<Flight, Double>, Double)] = [
            ("started-1e300", \.startedAt, 1e300), ("ended-2100", \.endedAt, FlightLimits.latestTime),
            ("distance-negative", \.distanceKm, -1), ("duration-huge", \.durationSeconds, 9.3e18),
            ("pace-infinite", \.averagePaceSecondsPerKm, .infinity), ("heart-rate-nan", \.averageHeartRate, .nan),
        ]
        for (name, field, value) in edges {
            var edge = flight
            edge[keyPath: field] = value
            seeds.append(("flight-" + name, PropertyListCodec.encode(edge.userInfo)))
        }
        var samples = flight
        samples.packedSamples = Flight.pack([FlightSample(time: .nan, distance: 3e38, pace: -1, heartRate: .infinity)])
        seeds.append(("flight-bad-samples", PropertyListCodec.encode(samples.userInfo)))
        // The alerts field (issue 15): valid, too many, a non-finite value, a dictionary of the wrong kind.
        var alerted = flight
        alerted.alerts = (0..<3).map { index in
            FlightAlert(
                id: FlightAlert.id(runID: flight.id, index: index, at: flight.startedAt + Double(index)), at: flight.startedAt + Double(index),
                type: index % 2 == 0 ? .sinkRate : .overspeed, mode: .heartRate, value: 118, target: "140-160")
        }
        seeds.append(("flight-alerts", PropertyListCodec.encode(alerted.userInfo)))
        var tooMany = alerted
        tooMany.alerts = Array(repeating: alerted.alerts[0], count: GPWS.maximumAlerts + 1)
        seeds.append(("flight-alerts-too-many", PropertyListCodec.encode(tooMany.userInfo)))
        var nonFinite = alerted
        nonFinite.alerts[1].value = .infinity
        seeds.append(("flight-alert-infinite", PropertyListCodec.encode(nonFinite.userInfo)))
        var wrongKind = alerted.userInfo
        wrongKind["alerts"] = .array([.dictionary(["id": .integer(1)])])
        seeds.append(("flight-alert-wrong-kind", PropertyListCodec.encode(wrongKind)))
        return seeds
    }
}
