import Control
import JSONText
import Posix
import TerminalViews

/// `runway top [NAME]`: both devices of a pair in one view, polled every interval — on a terminal a
/// full screen redrawn in place, otherwise one plain block per refresh.
enum TopCommand {
    static let command = CLI.Command(
        path: ["top"], synopsis: "[NAME] [--phone P --watch W] [--interval-ms N] [--once] [--json] [--ascii]",
        summary: """
            One live view of both devices of a pair: each daemon up or down (and its pid), activation, link,
            reachability, app states (phone-os's and watch-os's too when they run the devices: launches, reclaims,
            the watch's queue and range while watch-os holds its link), the watch's outbox depth and drain
            rate, the phone's stored count and save rate, the last events, and a sparkline of both counts over the
            last minute. On a terminal it redraws in place on the alternate screen until Ctrl-C (the terminal is
            given back as it was); otherwise one plain block per refresh, or one with --once. --json prints one
            snapshot object (rates need two polls: null). A device that is down is shown as down. NAME defaults to
            --pair, RUNWAY_PAIR or the only registered pair; --phone and --watch name the homes instead.
            """,
        specs: PairPoll.homeSpecs + [
            .option("interval-ms", "N", "how often to poll (100 to 60000; default 1000)"),
            .flag("once", "one refresh, then exit"),
            CLI.jsonSpec, Terminal.asciiSpec, CLI.pairSpec,
        ],
        positionals: 1,
        run: { parsed in
            let interval = try parsed.integer("interval-ms", default: 1000, range: 100...60_000)!
            let pair = try PairPoll.pair(parsed)
            try PairPoll.checkHomes(pair)
            if parsed.has("json") {
                Output.out(snapshotJSON(pair, PairPoll.take(pair)).text)
                return 0
            }
            let style = Terminal.glyphStyle(ascii: parsed.has("ascii"))
            let once = parsed.has("once")
            let screen = Terminal.isTerminal && !once ? FullScreen() : nil
            if screen == nil { restoreDefaultSignals([SIGINT, SIGTERM]) }
            var view = TopView(pair: pair, interval: interval, style: style)
            var first = true
            while true {
                let started = monotonicNow()
                view.add(PairPoll.take(pair), at: started)
                if let screen {
                    screen.draw(view.lines(columns: Terminal.size().columns))
                } else {
                    Output.out((first ? "" : "\n") + view.lines(columns: 100).joined(separator: "\n"))
                    first = false
                }
                if once { return 0 }
                let left = Double(interval) / 1000 - (monotonicNow() - started)
                if left > 0 { usleep(UInt32(left * 1_000_000)) }
            }
        })

    /// `{"pair":…,"watch":{"home":…,"up":true,"status":{…}},"phone":{…,"os":{…}}}`.
    static func snapshotJSON(_ pair: PairRegistry.Pair, _ poll: PairPoll) -> JSONValue {
        func device(_ home: String, _ device: PairPoll.Device) -> [String: JSONValue] {
            var fields: [String: JSONValue] = ["home": .string(home), "up": .bool(device.up)]
            if let status = device.status { fields["status"] = status.json }
            if let problem = device.problem { fields["problem"] = .string(problem) }
            return fields
        }
        var phone = device(pair.phone, poll.phone)
        phone["os"] = poll.phoneOS?.json ?? .null
        var watch = device(pair.watch, poll.watch)
        watch["os"] = poll.watchOS?.json ?? .null
        if let held = poll.watchHeldByOS { watch["heldByOS"] = held.json }
        return .object([
            "pair": .string(pair.name), "watch": .object(watch), "phone": .object(phone),
            "rates": .object(["drainPerSecond": .null, "savesPerSecond": .null]),
        ])
    }
}

/// The view's state between refreshes (the last poll, the minute of counts, the events) and its lines.
struct TopView {
    let pair: PairRegistry.Pair
    let interval: Int
    let style: GlyphStyle
    private(set) var last: PairPoll?
    private var history = CountHistory(window: 60)
    private var events = TopEvents()

    init(pair: PairRegistry.Pair, interval: Int, style: GlyphStyle) {
        self.pair = pair
        self.interval = interval
        self.style = style
    }

    mutating func add(_ poll: PairPoll, at seconds: Double) {
        events.note(last, poll, clock: localClock())
        history.add(.init(seconds: seconds, outbox: poll.outbox, stored: poll.stored, acknowledged: poll.acknowledged))
        last = poll
    }

    func lines(columns: Int) -> [String] {
        guard let poll = last else { return [] }
        var lines = ["runway top — pair \(pair.name)   \(localClock())   every \(interval) ms" + (Terminal.isTerminal ? "   Ctrl-C to leave" : "")]
        let watch = watchBlock(poll), phone = phoneBlock(poll)
        if columns >= 84 {
            let half = columns / 2
            for index in 0..<max(watch.count, phone.count) {
                let left = index < watch.count ? watch[index] : ""
                lines.append(TextWidth.fit(left, half) + (index < phone.count ? phone[index] : ""))
            }
        } else {
            lines += watch + phone
        }
        let width = max(10, min(60, columns - 28))
        lines.append("")
        lines.append("LAST MINUTE")
        for (label, key, value) in [("outbox", \CountHistory.Point.outbox, poll.outbox), ("stored", \CountHistory.Point.stored, poll.stored)] {
            let values = history.columns(key, count: width)
            let peak = values.compactMap { $0 }.max().map { String(Int($0)) } ?? "-"
            lines.append("  \(label) \(Sparkline.render(values, floor: 0, style: style))  now \(value.map(String.init) ?? "-"), max \(peak)")
        }
        lines.append("")
        lines.append("EVENTS")
        let shown = events.events.suffix(8)
        if shown.isEmpty { lines.append("  (none yet: changes appear here as they happen)") }
        for event in shown { lines.append("  \(event.clock)  \(event.device.padding(5))  \(event.text)") }
        return lines
    }

    private func upLine(_ daemon: String, _ device: PairPoll.Device) -> String {
        "  " + daemon.padding(13) + (device.up ? "up, pid \(device.pid.map(String.init) ?? "?")" : "DOWN (\(device.problem ?? "not running"))")
    }

    /// The app's process as its status names it (`phone-daemon` for RunWay's, `WaterLog` for yours).
    static func process(_ device: PairPoll.Device, _ otherwise: String) -> String {
        device.status?.other["app"]?["executable"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? otherwise
    }

    /// `com.example.WaterLog, pid 4242`: the app a status describes.
    static func identity(_ status: StatusReply) -> String? {
        guard let app = status.other["app"], let bundleID = app["bundleId"]?.stringValue else { return nil }
        return bundleID + (app["pid"]?.intValue.map { ", pid \($0)" } ?? "")
    }

    private func row(_ key: String, _ value: String) -> String { "  " + key.padding(13) + value }

    private func plural(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }

    private func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    private func rate(_ key: KeyPath<CountHistory.Point, Int?>) -> String {
        guard let value = history.rate(key) else { return "-" }
        return "\(Int(value.rounded()))/s"
    }

    /// A device's first lines: its home, its app's process (up, down, or not running under its OS, which
    /// is the normal state there), and its OS's line.
    private func header(_ title: String, _ home: String, _ device: PairPoll.Device, os: OSStatusReply?, _ process: String, idle: String) -> [String] {
        let name = Self.process(device, process)
        var lines = ["\(title)  \(home)", os != nil && !device.up ? row(name, idle) : upLine(name, device)]
        if let os {
            lines.append(
                row(
                    title == "PHONE" ? "phone-os" : "watch-os",
                    "app \(os.appState)" + (os.appPid.map { " (pid \($0))" } ?? "")
                        + ", \(plural(Int(os.launchCount), "launch", "launches")), \(os.reclaims) reclaimed"))
        }
        return lines
    }

    private func watchBlock(_ poll: PairPoll) -> [String] {
        // Under watch-os an app that is not running is the normal state: it holds the link meanwhile.
        var lines = header("WATCH", pair.watch, poll.watch, os: poll.watchOS, "watch-agent", idle: "not running (watch-os launches it)")
        guard let s = poll.watch.status else {
            if let held = poll.watchHeldByOS {
                let range = held.other["linkRange"]?.stringValue ?? "?"
                let inRange = held.other["phoneInRange"]?.boolValue == true
                lines.append(row("link", "watch-os's, " + (range == "out" ? "out of range" : inRange ? "phone in range (\(range))" : "no phone")))
                lines.append(row("outbox", "\(poll.outbox.map(String.init) ?? "?") queued, for the app to send"))
            }
            return lines
        }
        lines.append(row("activation", s.activationState))
        lines.append(row("link", (s.linked ? "connected" : "not connected") + (s.linkEnabled == false ? " (out of range)" : "")))
        lines.append(row("reachable", yesNo(s.reachable)))
        lines.append(row("app", (s.watchAppInstalled ? "installed" : "not installed") + (s.watchAppActive == true ? ", foreground" : ", background")))
        lines.append(row("outbox", "\(poll.outbox.map(String.init) ?? "?") queued, \(s.outbox.inFlight) in flight"))
        lines.append(row("drain", rate(\.acknowledged) + " acknowledged"))
        return lines
    }

    private func phoneBlock(_ poll: PairPoll) -> [String] {
        // Under phone-os an app that is not running is the normal state, not a failure: it is launched when needed.
        var lines = header("PHONE", pair.phone, poll.phone, os: poll.phoneOS, "phone-daemon", idle: "not running (phone-os launches it when needed)")
        guard let s = poll.phone.status else { return lines }
        lines.append(row("activation", s.activationState))
        lines.append(row("link", s.linked ? "connected" : "not connected"))
        lines.append(row("reachable", yesNo(s.reachable)))
        guard s.flights != nil || s.savePath != nil else {
            // Anyone's app: which it is, and what its session holds — RunWay's rows are RunWay's.
            lines.append(row("app", Self.identity(s) ?? "?"))
            lines.append(row("outbox", "\(s.outstandingUserInfoTransfers) userInfo queued, \(s.outbox.inFlight) in flight"))
            return lines
        }
        lines.append(row("app", "save path \(s.savePath ?? "?"), \(s.uiClients ?? 0) UI attached"))
        lines.append(row("stored", "\(poll.stored.map(String.init) ?? "?") flights"))
        lines.append(row("saves", rate(\.stored)))
        return lines
    }
}
