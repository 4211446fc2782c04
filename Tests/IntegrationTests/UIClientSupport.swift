import Posix
import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting

/// A UI client opened from the test itself: attaches over the phone's control socket like
/// `runway phone ui`, lists the logbook, then collects `flightSaved` events on a thread of its own until
/// it is detached or the phone goes.
final class EventCollector: @unchecked Sendable {
    let client: ControlClient
    /// What the attach said it drained, and the logbook listed right after attaching.
    let drained: Int
    let listed: [(id: String, arrival: Int)]
    private let lock = NSLock()
    private var received: [(id: String, arrival: Int)] = []
    private let finished = DispatchSemaphore(value: 0)

    init(phoneHome: String) throws {
        let home = DeviceHome(path: phoneHome, role: .phone)
        client = try ControlClient(home: home)
        drained = try client.call(ControlRequest(command: "attach"))["drained"]?.intValue ?? -1
        listed = (try ControlClient(home: home).call(ControlRequest(command: "logbook")).arrayValue ?? []).map {
            ($0["id"]?.stringValue ?? "", $0["arrival"]?.intValue ?? -1)
        }
        let thread = Thread { [self] in
            while let event = try? client.nextEvent() {
                guard event["event"]?.stringValue == "flightSaved", let flight = event["flight"] else { continue }
                lock.withLock { received.append((flight["id"]?.stringValue ?? "", flight["arrival"]?.intValue ?? -1)) }
            }
            finished.signal()
        }
        thread.start()
    }

    var events: [(id: String, arrival: Int)] { lock.withLock { received } }

    /// Closes the connection (the UI going away) and waits for the reading thread to finish.
    func detach() {
        shutdown(client.rawDescriptor, Int32(SHUT_RDWR))
        finished.wait()
    }

    /// What a UI must hold: the events it acts on (arrival above its listing) follow the listing with no
    /// gap and no repeat. Returns the problems, if any.
    func gapsOrRepeats() -> [String] {
        let listedUpTo = listed.map(\.arrival).max() ?? 0
        var expected = listedUpTo + 1
        var problems: [String] = []
        for event in events where event.arrival > listedUpTo {
            if event.arrival != expected { problems.append("event for arrival \(event.arrival), expected \(expected)") }
            expected = event.arrival + 1
        }
        return problems
    }
}

/// `runway phone ui` as a real process (a `ChildProcess`), its stdout in a file.
final class UIProcess {
    let process: ChildProcess
    let outputPath: String

    init(phoneHome: String, scratch: String, index: Int) throws {
        outputPath = "\(scratch)/ui-\(index).out"
        // Every month expanded, so that every flight it lists is in its output.
        process = try ChildProcess(
            "runway", ["phone", "ui", "--home", phoneHome, "--expand", "all"],
            stdout: .file(outputPath))
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var isAttached: Bool { output.contains("-- attached;") }

    /// The ids of the flights it announced as saved, in order.
    var savedIDs: [String] { ids(after: "saved: ") }
    /// The ids of the flights its logbook listed.
    var listedIDs: [String] { ids(after: "      ") }

    private func ids(after prefix: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// Sends `signal` and waits for it to go.
    func signal(_ signal: Int32) { process.kill(signal) }
}
