import Control
import Dispatch
import JSONText
import Posix
import RunWayDomain

/// `runway phone ui` on a terminal: the phone's screen, redrawn in place — a header (the Pre-flight APPLE
/// WATCH row, reachability, flights stored), the Logbook as it was on attaching, and a pane of the latest
/// events (the same lines the plain form prints). Events are read on a thread of their own and the screen
/// is redrawn at most every 100 ms, so a drain of thousands of flights does not flood the terminal.
final class PhoneScreen {
    private let client: DeviceClient
    private let home: String
    private let logbook: [String]
    private let calendar: LogbookCalendar
    private var shownUpTo: Int
    private var stored: Int
    private var watchRow: String
    private var reachable: Bool
    private let savePath: String
    private var events: [(clock: String, text: String)] = []
    static let keptEvents = 200

    init(
        client: DeviceClient, home: String, logbook: String, drained: Int, calendar: LogbookCalendar, shownUpTo: Int,
        stored: Int, status: StatusReply, preflight: PreflightReply
    ) {
        self.client = client
        self.home = home
        self.logbook = logbook.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        self.calendar = calendar
        self.shownUpTo = shownUpTo
        self.stored = stored
        watchRow = preflight.appleWatch.label
        reachable = preflight.reachable
        savePath = status.savePath ?? "?"
        if drained > 0 { events.append((localClock(), "the home screen saved \(drained) flight(s) that were waiting for it")) }
        events.append((localClock(), "attached"))
    }

    /// Runs until the phone closes the connection (exit 0) or a signal ends it (the screen is given back).
    func run() throws -> Int32 {
        let queue = EventQueue()
        let reader = UncheckedBox(client)
        DispatchQueue.global().async {
            while let event = try? reader.value.nextEvent() { queue.push(event) }
            queue.push(nil)
        }
        let screen = FullScreen()
        screen.draw(lines())
        var lastDraw = monotonicNow(), dirty = false
        while true {
            // At least once a second: the clock in the header, and a terminal that was resized.
            let wait = dirty ? max(0, 0.1 - (monotonicNow() - lastDraw)) : max(0, 1 - (monotonicNow() - lastDraw))
            let (batch, ended) = queue.take(waitingUpTo: wait)
            for event in batch { apply(event) }
            dirty = dirty || !batch.isEmpty
            if ended {
                screen.draw(lines())
                screen.leave()
                Output.out("-- the phone closed the connection --")
                return 0
            }
            if (dirty && monotonicNow() - lastDraw >= 0.1) || monotonicNow() - lastDraw >= 1 {
                screen.draw(lines())
                lastDraw = monotonicNow()
                dirty = false
            }
        }
    }

    private func apply(_ event: JSONValue) {
        if event["event"]?.stringValue == "watchState" {
            watchRow = event["appleWatch"]?["label"]?.stringValue ?? watchRow
            reachable = event["reachable"]?.boolValue ?? reachable
        }
        let before = shownUpTo
        guard let line = PhoneEvents.line(event, calendar: calendar, shownUpTo: &shownUpTo) else { return }
        if shownUpTo > before { stored += 1 }
        for (index, part) in line.split(separator: "\n").enumerated() {
            events.append((index == 0 ? localClock() : "", String(part)))
        }
        if events.count > Self.keptEvents { events.removeFirst(events.count - Self.keptEvents) }
    }

    /// Header, Logbook pane, event pane — fitted to the terminal's height.
    func lines() -> [String] {
        let (columns, rows) = Terminal.size()
        let rule = String(repeating: "─", count: min(columns, 100))
        var out = [
            "RunWay — phone \(home)   \(localClock())   Ctrl-C to leave",
            "APPLE WATCH \(watchRow)   reachable \(reachable ? "yes" : "no")   \(stored) flights stored   save path \(savePath)",
            rule,
        ]
        let eventRows = max(3, (rows - out.count - 2) / 2)
        let logbookRows = max(1, rows - out.count - 2 - eventRows)
        var pane = Array(logbook.prefix(logbookRows))
        if logbook.count > logbookRows {
            pane[pane.count - 1] = "  … \(logbook.count - logbookRows + 1) more lines (runway phone logbook)"
        }
        out += pane + Array(repeating: "", count: logbookRows - pane.count)
        out.append(rule)
        out.append("EVENTS (newest last)")
        out += events.suffix(eventRows).map { "  " + $0.clock.padding(9) + $0.text }
        return out
    }
}

/// Events from the reading thread to the screen's, with a pipe to wake the screen's `poll`.
final class EventQueue: @unchecked Sendable {
    private var items: [JSONValue?] = []
    private let lock = ThreadLock()
    private var pipeEnds: [Int32] = [-1, -1]

    init() {
        _ = pipeEnds.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        for end in pipeEnds where end >= 0 {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        for end in pipeEnds where end >= 0 { close(end) }
    }

    /// nil: the phone closed the connection.
    func push(_ event: JSONValue?) {
        lock.withLock { items.append(event) }
        var byte: UInt8 = 1
        _ = write(pipeEnds[1], &byte, 1)
    }

    /// What has arrived, waiting up to `seconds` (negative: until something does) when nothing has.
    func take(waitingUpTo seconds: Double) -> (events: [JSONValue], ended: Bool) {
        var descriptor = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, seconds < 0 ? -1 : Int32(seconds * 1000))
        var drain = [UInt8](repeating: 0, count: 256)
        while read(pipeEnds[0], &drain, drain.count) > 0 {}
        let taken = lock.withLock {
            defer { items.removeAll() }
            return items
        }
        return (taken.compactMap { $0 }, taken.contains { $0 == nil })
    }
}

/// Hands a non-Sendable value to the one thread that uses it from then on.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
