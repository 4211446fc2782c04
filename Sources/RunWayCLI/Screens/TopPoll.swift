import Connectivity
import Control
import JSONText
import Posix
import TerminalViews

/// One poll of a pair for `runway top` and `runway timeline record`: each daemon's `status` over its
/// control socket, and phone-os's and watch-os's `os-status` when they run — with, while the watch app is
/// not running, watch-os's own answer for the watch (its queue, the range). A daemon that does not answer
/// is down, not an error: the view goes on and says so.
struct PairPoll {
    struct Device {
        var status: StatusReply?
        /// Why it is down (not running, not answering).
        var problem: String?
        var up: Bool { status != nil }
        var pid: Int? { status.flatMap { (1...Int64(Int32.max)).contains($0.pid) ? Int($0.pid) : nil } }

        /// A count the daemon reported, if it is one: 0 to 10^9 (what a timeline file holds), else unknown —
        /// so that no subtraction of two reported numbers can overflow.
        func count(_ key: String, in object: String? = nil) -> Int? {
            let json = status?.json
            let value = object.map { json?[$0]?[key] } ?? json?[key]
            return value?.intValue.flatMap { (0...1_000_000_000).contains($0) ? $0 : nil }
        }

        func sample(count key: String) -> DeviceSample {
            DeviceSample(up: up, pid: pid, count: count(key))
        }
    }

    var watch: Device
    var phone: Device
    /// phone-os's status, when the phone is run by it.
    var phoneOS: OSStatusReply?
    /// watch-os's, when the watch is run by it; and its `status` for the watch while the app is not running.
    var watchOS: OSStatusReply?
    var watchHeldByOS: StatusReply?

    /// The watch's queue: the app's count, or watch-os's while the app is not running.
    var outbox: Int? {
        watch.count("outstandingUserInfoTransfers")
            ?? watchHeldByOS.flatMap { (0...1_000_000_000).contains($0.outstandingUserInfoTransfers) ? Int($0.outstandingUserInfoTransfers) : nil }
    }
    var stored: Int? { phone.count("flights") }
    var acknowledged: Int? { watch.count("lastAcknowledgedTransfer", in: "outbox") }

    /// How long one status call may take before the device counts as not answering (a frozen daemon).
    static let timeoutMilliseconds = 2000

    static func take(_ pair: PairRegistry.Pair) -> PairPoll {
        let phoneHome = DeviceHome(path: pair.phone, role: .phone), watchHome = DeviceHome(path: pair.watch, role: .watch)
        var poll = PairPoll(watch: device(watchHome), phone: device(phoneHome), phoneOS: osStatus(phoneHome), watchOS: osStatus(watchHome))
        if poll.watchOS != nil, !poll.watch.up {
            poll.watchHeldByOS = try? osClient(watchHome)?.send(ControlCommands.Status())
        }
        return poll
    }

    private static func osClient(_ home: DeviceHome) -> ControlClient? {
        let path = home.osControlSocketPath
        guard Filesystem.kind(of: path) == .socket else { return nil }
        return try? ControlClient(home: home, socketPath: path, timeoutMilliseconds: timeoutMilliseconds)
    }

    private static func osStatus(_ home: DeviceHome) -> OSStatusReply? {
        try? osClient(home)?.send(ControlCommands.OSStatus())
    }

    private static func device(_ home: DeviceHome) -> Device {
        guard Filesystem.kind(of: home.controlSocketPath) == .socket else { return Device(status: nil, problem: "not running") }
        do {
            let client = try ControlClient(home: home, timeoutMilliseconds: timeoutMilliseconds)
            return Device(status: try client.send(ControlCommands.Status()), problem: nil)
        } catch {
            return Device(status: nil, problem: error.message.contains("did not") ? "not answering" : "not running")
        }
    }

    /// Both homes must be directories: a typo is exit 2 at once, not a view of two devices down.
    static func checkHomes(_ pair: PairRegistry.Pair) throws {
        for (role, path) in [("phone", pair.phone), ("watch", pair.watch)] where Filesystem.kind(of: path) != .directory {
            throw ControlError.invalid("\(path) is not a \(role) home (no such directory)")
        }
    }

    /// The pair for `top` and `timeline record`: --phone and --watch, else NAME, --pair, RUNWAY_PAIR or the only one.
    static func pair(_ parsed: ParsedArguments) throws -> PairRegistry.Pair {
        switch (parsed.value("phone"), parsed.value("watch")) {
        case let (phone?, watch?):
            let (phone, watch) = (Filesystem.absolutePath(phone), Filesystem.absolutePath(watch))
            // Named as registered, if it is; a registry that does not parse is no reason to refuse two homes.
            let name = (try? PairRegistry.load())?.pairs.first { $0.phone == phone && $0.watch == watch }?.name
            return PairRegistry.Pair(name: name ?? "(unregistered)", phone: phone, watch: watch)
        case (nil, nil):
            return try RegistryCommands.named(parsed)
        default:
            throw UsageError("--phone and --watch go together (or name a registered pair)")
        }
    }

    static let homeSpecs: [ArgumentSpec] = [
        .option("phone", "P", "the phone's home (with --watch; default: the registered pair's)"),
        .option("watch", "W", "the watch's home (with --phone)"),
    ]
}

/// What `top` noticed between two polls, newest last: a daemon down or up, a change of link, reachability
/// or app state, runs queued, flights saved. A count that keeps moving updates its line instead of adding one.
struct TopEvents {
    struct Event {
        var clock: String
        var device: String
        var text: String
        /// Counts that change again continue the same line: (what, the count it started from).
        var running: (key: String, from: Int)?
    }

    private(set) var events: [Event] = []
    static let kept = 50

    mutating func note(_ before: PairPoll?, _ after: PairPoll, clock: String) {
        guard let before else { return }
        for (name, old, new, countKey) in [
            ("watch", before.watch, after.watch, "outstandingUserInfoTransfers"),
            ("phone", before.phone, after.phone, "flights"),
        ] {
            for transition in Transition.between(old.sample(count: countKey), new.sample(count: countKey)) {
                let pid = transition == .down ? old.pid : new.pid
                add(
                    Event(
                        clock: clock, device: name,
                        text: transition.rawValue + (pid.map { " (pid \($0))" } ?? "")
                            + (transition == .down ? ": \(new.problem ?? "gone")" : "")))
            }
            guard let was = old.status?.json, let now = new.status?.json else { continue }
            for (key, label) in [
                ("activationState", "activation"), ("linked", "link"), ("reachable", "reachable"),
                ("watchAppInstalled", "watch app installed"), ("watchAppActive", "watch app active"), ("linkEnabled", "in range"),
            ] {
                if let a = was[key], let b = now[key], a != b {
                    add(Event(clock: clock, device: name, text: "\(label) \(Self.word(a)) → \(Self.word(b))"))
                }
            }
            if let a = old.count(countKey), let b = new.count(countKey), a != b {
                let key = name == "watch" ? (b > a ? "queued" : "sent") : (b > a ? "saved" : "deleted")
                count(key: key, device: name, from: a, to: b, clock: clock)
            }
        }
        for (device, os, was, now) in [("phone", "phone-os", before.phoneOS, after.phoneOS), ("watch", "watch-os", before.watchOS, after.watchOS)] {
            if let oldApp = was?.appState, let newApp = now?.appState, oldApp != newApp {
                add(Event(clock: clock, device: device, text: "app \(oldApp) → \(newApp) (\(os))"))
            }
            // The OS's counters: a launch (and why) or a reclaim between two polls, even one too quick to see.
            let counters: [(KeyPath<OSStatusReply, Int64>, String)] = [(\.launchCount, "launched"), (\.reclaims, "reclaimed"), (\.jetsams, "jetsammed")]
            for (key, words) in counters {
                guard let a = was?[keyPath: key], let b = now?[keyPath: key], b > a, b - a <= 1_000_000 else { continue }
                let reason = key == \OSStatusReply.launchCount ? now.map { ", last for \($0.lastLaunchReason)" } ?? "" : ""
                add(Event(clock: clock, device: device, text: "app \(words) by \(os)" + (b - a > 1 ? " \(b - a) times" : "") + reason))
            }
        }
        if let a = before.watchOS?.phoneInRange, let b = after.watchOS?.phoneInRange, a != b, !after.watch.up {
            add(Event(clock: clock, device: "watch", text: "phone in range \(Self.word(.bool(a))) → \(Self.word(.bool(b))) (watch-os)"))
        }
    }

    private mutating func count(key: String, device: String, from: Int, to: Int, clock: String) {
        var start = from
        if let last = events.last, last.device == device, let running = last.running, running.key == key {
            start = running.from
            events.removeLast()
        }
        let words: String
        switch key {
        case "queued": words = "queued +\(to - start) (outbox \(to))"
        case "sent": words = "outbox \(start) → \(to)" + (to == 0 ? ", empty" : "")
        case "saved": words = "saved +\(to - start) (stored \(to))"
        default: words = "stored \(start) → \(to)"
        }
        add(Event(clock: clock, device: device, text: words, running: (key, start)))
    }

    private mutating func add(_ event: Event) {
        events.append(event)
        if events.count > Self.kept { events.removeFirst(events.count - Self.kept) }
    }

    static func word(_ value: JSONValue) -> String {
        if let bool = value.boolValue { return bool ? "yes" : "no" }
        return value.stringValue ?? value.text
    }
}
