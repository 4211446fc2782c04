import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// APP_SPEC C through the real binaries: the Pre-flight APPLE WATCH row in every state, the 1.3.1 row,
/// the heart-rate rule, the pairing seed and the activation window.
@Suite(.serialized) struct PreflightTests {
    /// 1. A fresh phone paired with nothing: NOT PAIRED, heart-rate mode unavailable.
    @Test func anUnpairedPhoneIsNotPaired() throws {
        let root = makeScratchDirectory("pf1")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let phone = try DaemonProcess("phone-daemon", ["--home", root + "/p"], logPath: root + "/phone.log")
        defer { phone.kill() }
        let shown = try JSONValue(parsing: try runTool(["phone", "preflight", "--home", root + "/p", "--json"]).stdout)
        #expect(shown["appleWatch"] == .object(["label": .string("NOT PAIRED"), "ok": .bool(false)]))
        #expect(shown["heartRateMode"] == .object(["available": .bool(false)]))
        #expect(shown["paired"] == .bool(false) && shown["activationState"] == .string("activated"))
        let text = try runTool(["phone", "preflight", "--home", root + "/p"]).stdout
        #expect(text == "PRE-FLIGHT CHECK\n  APPLE WATCH      NOT PAIRED\n  HEART RATE MODE  unavailable\n")
    }

    /// 2–4, 7. Reachability does not matter to the row (it does to 1.3.1's); uninstalling the watch app
    /// does; a watch that has gone is still paired and installed. Heart-rate mode follows the row in
    /// every state (`row` checks it on each read).
    @Test func everyRowStateAndTheLegacyRow() throws {
        try withRunningPair(tag: "pf2") { pair in
            try pair.record(3)
            try pair.waitUntilDrained()
            let w = pair.watchHome
            func app(_ action: String) throws {
                let result = try runTool(["watch", "app", action, "--home", w])
                guard result.status == 0 else { throw HarnessError("watch app \(action): \(result.stderr)") }
            }
            try pair.waitUntil("the phone reaches the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            #expect(try pair.row() == "READY")
            #expect(try pair.row(legacy: true) == "CONNECTED")

            try app("background")
            try pair.waitUntil("the watch is unreachable") { try pair.status("phone")["reachable"] == .bool(false) }
            #expect(try pair.row() == "READY")
            #expect(try pair.row(legacy: true) == "NOT CONNECTED")
            #expect(try pair.preflight(legacy: true)["heartRateMode"]?["available"] == .bool(true))  // 1.3.1's own copy

            try app("foreground")
            try pair.waitUntil("the phone reaches the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            #expect(try pair.row() == "READY")
            #expect(try pair.row(legacy: true) == "CONNECTED")

            try app("uninstall")
            try pair.waitUntil("the phone hears of the uninstall") { try pair.status("phone")["watchAppInstalled"] == .bool(false) }
            #expect(try pair.row() == "APP NOT INSTALLED")
            try app("install")
            try pair.waitUntil("the phone hears of the install") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            #expect(try pair.row() == "READY")

            pair.killWatch()
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            #expect(try pair.row() == "READY")
            #expect(try pair.row(legacy: true) == "NOT CONNECTED")
            try pair.startWatch()
            try pair.record(2)
            try pair.expectDrainedAndClean()
        }
    }

    /// 5. The pairing seed: a phone whose watch never connected knows from the pairing whether the watch
    /// app is installed — READY, and a phone-first transfer is queued instead of failing with 7006.
    @Test func thePairingSeedsWhetherTheWatchAppIsInstalled() throws {
        try withRunningPair(tag: "pf5", watch: nil) { pair in
            #expect(try pair.row() == "READY")
            #expect(try pair.status("phone")["watchAppInstalled"] == .bool(true))
            let file = pair.root + "/hello.json"
            try #"{"hello":"watch"}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let sent = try runTool(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", file])
            #expect(sent.status == 0, "\(sent.stderr)")
            try pair.startWatch()
            try pair.waitUntil("the watch received the phone's transfer") {
                try runTool(["watch", "received", "--home", pair.watchHome, "--json"]).stdout.contains("watch")
            }
            try pair.record(2)
            try pair.expectDrainedAndClean()

            // The seed carries what the watch home says: a watch app removed before pairing is not installed.
            try withRunningPair(tag: "pf5b", phone: nil) { other in
                #expect(try runTool(["watch", "app", "uninstall", "--home", other.watchHome]).status == 0)
                other.killWatch(SIGTERM)
                _ = try runTool(["pair", "--phone", other.phoneHome, "--watch", other.watchHome])
                try other.startPhone()
                #expect(try other.row() == "APP NOT INSTALLED")
            }
        }
    }

    /// 6. The activation window (seed 001's hole): CHECKING, not a false NOT PAIRED (which --legacy still
    /// shows); session commands answer 7004; nothing is stored before `session.activated`; an attached UI
    /// is told the new row when activation completes.
    @Test func theActivationWindowShowsCheckingAndTheUIIsRefreshed() throws {
        try withRunningPair(tag: "pf6", phone: nil) { pair in
            try pair.record(4)
            // The watch is down while the phone activates: the UI's refresh can come from activation alone.
            pair.killWatch(SIGTERM)
            _ = pair.watch?.waitForExit(timeout: 10)
            pair.phoneArguments = ["--activation-delay-ms", "6000", "--log-level", "debug"]
            try pair.startPhone()
            let ui = try pair.attachUI()
            defer { ui.close() }
            // In the window (the control socket answers before the session is activated).
            let checking = try pair.preflight()
            #expect(checking["activationState"] == .string("notActivated"))
            #expect(checking["appleWatch"] == .object(["label": .string("CHECKING"), "ok": .bool(false)]))
            #expect(checking["heartRateMode"] == .object(["available": .bool(false)]))
            #expect(try pair.row(legacy: true) == "NOT PAIRED")
            #expect(try pair.status("phone")["activationState"] == .string("notActivated"))
            #expect(try pair.storedCount() == 0)
            let file = pair.root + "/p.json"
            try #"{"a":1}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try runTool(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", file])
            #expect(refused.status == 1 && refused.stderr.contains("7004"), "\(refused.stderr)")
            let received = try runTool(["phone", "received", "--home", pair.phoneHome])
            #expect(received.status == 1 && received.stderr.contains("7004"), "\(received.stderr)")
            #expect(!ui.stdoutSoFar.contains("watch: "))
            // After.
            try pair.waitUntil("the UI was told the new row") { ui.stdoutSoFar.contains("watch: APPLE WATCH READY") }
            #expect(try pair.row() == "READY")
            try pair.startWatch()
            try pair.expectDrainedAndClean()
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            let activated = try #require(log.range(of: "event=session.activated"))
            let firstReceive = try #require(log.range(of: "event=receive.batch"))
            #expect(activated.lowerBound < firstReceive.lowerBound)
            #expect(log.range(of: "event=link.established")!.lowerBound > activated.lowerBound)
        }
    }
}
