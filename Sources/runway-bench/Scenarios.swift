import Connectivity
import Devices
import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayApp

/// The figures `scripts/bench` reports, each measured on real processes in fresh homes.
struct Scenarios {
    let count: Int
    let runs: Int

    func client(_ home: String, _ role: DeviceRole) throws -> ControlClient {
        try ControlClient(home: DeviceHome(path: home, role: role))
    }

    /// Records `count` runs on the watch through its control socket, in slices (one outbox
    /// transaction each) so the reply stays small.
    func record(_ pair: SimulatedPair, _ count: Int) throws {
        let watch = try client(pair.watchHome, .watch)
        var left = count
        while left > 0 {
            let slice = min(left, 20_000)
            _ = try watch.call(ControlRequest(command: "record", arguments: ["count": .integer(Int64(slice))]))
            left -= slice
        }
    }

    func outstanding(_ watch: ControlClient) throws -> Int {
        try watch.call(ControlRequest(command: "status"))["outstandingUserInfoTransfers"]?.intValue ?? -1
    }

    /// The mean encoded size of a generated flight's userInfo: the baseline moves records of this size.
    func payloadBytes() -> Int {
        var generator = FlightGenerator(seed: 1)
        let flights = generator.flights(count: 1000, distanceKm: nil, now: 1.8e9)
        return flights.reduce(0) { $0 + PropertyListCodec.encode($1.userInfo).count } / flights.count
    }

    // MARK: - Drain

    struct DrainResult {
        var seconds: Double
        var phonePeakKB: Int
        var watchPeakKB: Int
    }

    /// A backlog of `backlog` recorded with the phone down, then the phone started: seconds from its
    /// process start until the watch's outbox is empty.
    func drain(backlog: Int, keep: ((SimulatedPair) throws -> Void)? = nil) throws -> DrainResult {
        let pair = try SimulatedPair(tag: "bench")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try record(pair, backlog)
        let watch = try client(pair.watchHome, .watch)
        let start = now()
        try pair.startPhone()
        while try outstanding(watch) > 0 { usleep(2000) }
        let seconds = now() - start
        let result = DrainResult(
            seconds: seconds, phonePeakKB: peakRSSKilobytes(pair.phone!.pid) ?? -1,
            watchPeakKB: peakRSSKilobytes(pair.watch!.pid) ?? -1)
        try keep?(pair)
        return result
    }

    func baseline(size: Int) throws -> Double {
        let scratch = makeScratchDirectory("base")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let result = try runTool(["--count", String(count), "--size", String(size), "--dir", scratch], binary: "bench-baseline")
        guard result.status == 0, let rate = result.stdout.split(separator: " ").first(where: { $0.hasPrefix("rate=") })
        else { throw HarnessError("bench-baseline failed: \(result.stderr)") }
        return Double(rate.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    // MARK: - Latency

    /// From `record --count 1` returning to the flight being stored on the phone (its `flightSaved`
    /// event reaching an attached UI client), `samples` times, the phone running.
    func latency(samples: Int) throws -> Sample {
        let pair = try SimulatedPair(tag: "lat")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try pair.startPhone()
        let watch = try client(pair.watchHome, .watch)
        let ui = try client(pair.phoneHome, .phone)
        _ = try ui.call(ControlRequest(command: "attach"))
        var sample = Sample()
        for _ in 0..<(samples + 10) {
            let ids = try watch.call(ControlRequest(command: "record", arguments: ["count": .integer(1)]))["ids"]?.arrayValue ?? []
            let returned = now()
            guard let id = ids.first?.stringValue else { throw HarnessError("record returned no id") }
            while let event = try ui.nextEvent() {
                if event["flight"]?["id"]?.stringValue == id { break }
            }
            sample.add((now() - returned) * 1000)
        }
        sample.values.removeFirst(10)  // warm-up
        return sample
    }

    // MARK: - Cold start

    /// Process start to `ready`, on a phone whose store holds `stored` flights.
    func coldStart(stored: Int) throws -> (ready: Sample, firstAck: Sample) {
        var ready = Sample(), firstAck = Sample()
        let pair = try SimulatedPair(tag: "cold")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try record(pair, stored)
        try pair.startPhone()
        let watch = try client(pair.watchHome, .watch)
        while try outstanding(watch) > 0 { usleep(5000) }
        for _ in 0..<runs {
            pair.phone!.stop()
            let start = now()
            try pair.startPhone()
            ready.add((now() - start) * 1000)
        }
        // SIGKILL mid-transfer, relaunch, first acknowledgement seen by the watch.
        for _ in 0..<runs {
            try record(pair, 3000)
            while try outstanding(watch) > 2000 { usleep(500) }
            pair.killPhone()
            let acked = try watch.call(ControlRequest(command: "status"))["outbox"]?["lastAcknowledgedTransfer"]?.intValue ?? 0
            let start = now()
            try pair.startPhone()
            while (try watch.call(ControlRequest(command: "status"))["outbox"]?["lastAcknowledgedTransfer"]?.intValue ?? 0) <= acked {
                usleep(200)
            }
            firstAck.add((now() - start) * 1000)
            while try outstanding(watch) > 0 { usleep(5000) }
        }
        return (ready, firstAck)
    }

    // MARK: - Scale

    /// `runway phone logbook --json` with `stored` flights in the logbook.
    func logbook(stored: Int) throws -> Sample {
        var sample = Sample()
        _ = try drain(backlog: stored) { pair in
            for _ in 0..<runs {
                // Only the command's own run: its output goes to /dev/null, not through the harness.
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Binaries.path("runway"))
                process.arguments = ["phone", "logbook", "--home", pair.phoneHome, "--json"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let start = now()
                try process.run()
                process.waitUntilExit()
                let seconds = now() - start
                guard process.terminationStatus == 0 else { throw HarnessError("logbook failed") }
                sample.add(seconds * 1000)
            }
        }
        return sample
    }
}
