import Foundation
import JSONText
import PairTesting
import Posix
import Testing

extension SimulatedPair {
    func mirroringState() throws -> String? { try phoneRun(["status"])["mirroring"]?["state"]?.stringValue }

    /// `runway phone run stop`: the saved flight is noted in the checker's history.
    @discardableResult
    func stopPhoneRun() throws -> JSONValue {
        let stopped = try phoneRun(["stop"])
        if stopped["saved"] == .string("saved"), let id = stopped["id"]?.stringValue { noteRecorded([id]) }
        return stopped
    }
}

/// The phone-led start, mirroring confirmation and the start origin through the real binaries (APP_SPEC E).
@Suite(.serialized) struct MirroringTests {
    /// E.7 1 and 6: the watch app in the background is woken; the watch starts with startOrigin remote and
    /// the phone sees it confirmed. The phone saves the run once, with its alerts; the watch transfers no
    /// flight, only the report of its Health save (issue 51).
    @Test func aPhoneLedStartIsConfirmedAndThePhoneSavesIt() throws {
        try withRunningPair(tag: "mir1") { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            _ = try runTool(["watch", "app", "background", "--home", pair.watchHome])
            let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: 1)
            defer { ui.signal(SIGKILL) }
            try pair.waitUntil("runway phone ui is attached") { ui.isAttached }
            let transfersBefore = try pair.status("watch")["outbox"]?["lastSentTransfer"]
            let started = try pair.phoneRun(["start", "--mode", "heart-rate"])
            let id = try #require(started["runId"]?.stringValue)
            #expect(started["startOrigin"] == .string("local"))
            #expect(started["mirroring"]?["assumedStarted"] == .bool(true))
            try pair.waitUntil("the phone sees the watch's confirmation", timeout: 2) { try pair.mirroringState() == "confirmed" }
            let watch = try pair.watchRun(["status"])
            #expect(watch["startOrigin"] == .string("remote") && watch["runId"] == .string(id))
            #expect(try pair.status("watch")["watchAppActive"] == .bool(true))
            #expect(try pair.phoneRun(["status"])["mirroring"]?["confirmedAt"]?.stringValue != nil)
            // The attached UI printed the confirmation (E.3).
            try pair.waitUntil("the UI shows the confirmation", timeout: 5) { ui.output.contains("mirroring: confirmed run \(id)") }
            let samples = ScriptedRun.withAlerts(2)
            let path = pair.root + "/phone-batch.json"
            try JSONValue.array(samples.map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
            let fed = try pair.phoneRun(["sample", "--json-file", path])
            #expect(fed["alerts"] == .integer(2))
            let stopped = try pair.stopPhoneRun()
            #expect(stopped["saved"] == .string("saved"))
            try pair.waitUntil("the watch ended its mirrored workout") { try pair.watchRun(["status"])["state"] == .string("idle") }
            // The watch transfers no flight (the phone owns the logbook's save); it reports its Health save
            // (issue 51): one userInfo, which the phone takes as the run's record, not as a payload of its own.
            try pair.waitUntil("the watch's report reached the phone") { try pair.status("phone")["healthDecisionsPending"] == .integer(0) }
            #expect(try pair.status("watch")["outbox"]?["lastSentTransfer"]?.intValue == (transfersBefore?.intValue ?? 0) + 1)
            #expect(try pair.status("phone")["inbox"]?["receivedUserInfo"] == .integer(0))
            #expect(try pair.phoneRun(["status"])["state"] == .string("idle"))
            #expect(try pair.outstandingTransfers() == 0)
            #expect(try pair.logbookIDs() == [id])
            #expect(try pair.alertsJSON().count == 2)
            // The post-run summary has no delete; the past flight's summary ends with one.
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("run.mirroring-confirmed"))
            let past = try runTool(["phone", "flight", id, "--home", pair.phoneHome])
            #expect(past.stdout.hasSuffix("delete: runway phone delete \(id)\n"))
            try pair.expectDrainedAndClean()
        }
    }

    /// E.7 2 and 3: with the watch down, refusing, or silent, RunWay still assumes mirroring started; the
    /// truth is unconfirmed, failed, unconfirmed.
    @Test func mirroringThatFailsIsReportedNotAssumed() throws {
        try withRunningPair(tag: "mir2", watch: ["--enable-test-commands"], phone: ["--mirroring-confirm-timeout-ms", "700"]) { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: 2)
            defer { ui.signal(SIGKILL) }
            try pair.waitUntil("runway phone ui is attached") { ui.isAttached }
            for (fault, expected) in [("refuse", "failed"), ("ignore", "unconfirmed"), ("down", "unconfirmed")] {
                if fault == "down" {
                    _ = pair.watch?.stop()
                } else {
                    let set = try runTool(["watch", "fault", "workout-start", fault, "--home", pair.watchHome])
                    #expect(set.status == 0, "\(set.stderr)")
                }
                let started = try pair.phoneRun(["start"])
                #expect(started["mirroring"]?["assumedStarted"] == .bool(true), "\(fault)")
                try pair.waitUntil("mirroring is \(expected)", timeout: 5) { try pair.mirroringState() == expected }
                // Still that a second later: nothing confirms it behind the phone's back.
                usleep(300_000)
                let status = try pair.phoneRun(["status"])
                #expect(status["mirroring"]?["state"] == .string(expected), "\(fault)")
                #expect(status["mirroring"]?["assumedStarted"] == .bool(true), "\(fault)")
                if fault == "refuse" { #expect(status["mirroring"]?["failureReason"] == .string("refused")) }
                if fault != "down" { #expect(try pair.watchRun(["status"])["state"] == .string("idle"), "\(fault)") }
                try pair.phoneRun(["sample", "--t", "60", "--distance-m", "250", "--pace", "4:00", "--hr", "150"])
                try pair.stopPhoneRun()
            }
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("run.mirroring-failed") && log.contains("reason=refused"))
            let shown = ui.output.split(separator: "\n").filter { $0.hasPrefix("mirroring: ") }.map { $0.split(separator: " ")[1] }
            #expect(shown == ["failed", "unconfirmed", "unconfirmed"], "\(ui.output)")
            #expect(ui.output.contains("(refused)"))
            #expect(log.contains("run.mirroring-unconfirmed"))
            try pair.startWatch()
            try pair.expectDrainedAndClean()
            #expect(try pair.logbookIDs().count == 3)
        }
    }

    /// E.7 4 and 5: heart-rate mode needs the APPLE WATCH row READY (and only that: not the link); two stops
    /// save one flight; a run in progress refuses another start.
    @Test func heartRateModeFollowsTheRowAndASecondStopSavesNothing() throws {
        try withRunningPair(tag: "mir3") { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            _ = try runTool(["watch", "app", "uninstall", "--home", pair.watchHome])
            try pair.waitUntil("the phone knows the app is gone") { try pair.status("phone")["watchAppInstalled"] == .bool(false) }
            let refused = try runTool(["phone", "run", "start", "--mode", "heart-rate", "--home", pair.phoneHome])
            #expect(refused.status == 1 && refused.stderr == "runway: heart-rate mode needs the Apple Watch: APP NOT INSTALLED\n")
            #expect(try pair.phoneRun(["status"])["state"] == .string("idle"))
            // Pace mode without the watch app: a phone-only run, no mirroring asked for.
            let phoneOnly = try pair.phoneRun(["start"])
            #expect(phoneOnly["mirroring"]?["requested"] == .bool(false) && phoneOnly["mirroring"]?["state"] == .string("notRequested"))
            let again = try runTool(["phone", "run", "start", "--home", pair.phoneHome])
            #expect(again.status == 1 && again.stderr.contains("a run is already in progress (\(phoneOnly["runId"]?.stringValue ?? "?"))"))
            try pair.phoneRun(["sample", "--t", "120", "--distance-m", "400", "--pace", "5:00", "--hr", "150"])
            let logbookBefore = try pair.logbookIDs().count
            try pair.stopPhoneRun()
            let second = try runTool(["phone", "run", "stop", "--home", pair.phoneHome])
            #expect(second.status == 1 && second.stderr == "runway: no run in progress on the phone; nothing saved\n")
            #expect(try pair.logbookIDs().count == logbookBefore + 1)
            #expect(try String(contentsOfFile: pair.phoneLog, encoding: .utf8).contains("run.save-skipped"))
            // Reinstalled, and the link down: READY all the same (paired and installed are remembered).
            _ = try runTool(["watch", "app", "install", "--home", pair.watchHome])
            try pair.waitUntil("the phone knows the app is back") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            try pair.setLink(up: false)
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            let hr = try pair.phoneRun(["start", "--mode", "heart-rate", "--target-hr", "130-150"])
            #expect(hr["mode"] == .string("heartRate") && hr["mirroring"]?["assumedStarted"] == .bool(true))
            let bad = try runTool(["phone", "run", "sample", "--t", "10", "--distance-m", "5", "--pace", "5:00", "--hr", "300", "--home", pair.phoneHome])
            #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1)
            try pair.phoneRun(["sample", "--t", "60", "--distance-m", "200", "--pace", "5:00", "--hr", "140"])
            try pair.stopPhoneRun()
            try pair.setLink(up: true)
            try pair.expectDrainedAndClean()
        }
    }

    /// E.7 7 (#52): during a 100-sample phone-led run with the watch confirmed, no instrument traffic reaches
    /// the phone: its receive counters and its received messages do not move.
    @Test func noInstrumentStreamDuringAMirroredRun() throws {
        try withRunningPair(tag: "mir4") { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            func counters() throws -> [JSONValue?] {
                let status = try pair.status("phone")
                let received = try JSONValue(parsing: try runTool(["phone", "received", "--home", pair.phoneHome, "--json"]).stdout)
                return [status["receivedTransfers"], status["inbox"]?["receivedUserInfo"], status["flights"], status["receivedMessages"], received]
            }
            try pair.phoneRun(["start"])
            try pair.waitUntil("mirroring is confirmed", timeout: 2) { try pair.mirroringState() == "confirmed" }
            let before = try counters()
            let path = pair.root + "/b.json"
            for batch in 0..<10 {
                let rows: [JSONValue] = (0..<10).map { i in
                    let n = Double(batch * 10 + i + 1)
                    return .array([.number(n * 3), .number(n * 10), .number(300), .number(150)])
                }
                try JSONValue.array(rows).text.write(toFile: path, atomically: true, encoding: .utf8)
                try pair.phoneRun(["sample", "--json-file", path])
                usleep(100_000)
            }
            #expect(try pair.phoneRun(["status"])["samples"] == .integer(100))
            #expect(try counters() == before)
            try pair.stopPhoneRun()
            try pair.expectDrainedAndClean()
        }
    }

    /// D.2 #52, the other way round: a watch with `--instrument-stream` (RunWay 1.4 before the clean-up)
    /// sends its values every 3 s during a run; the phone drops every one and counts them. The counters
    /// the two tests above hold still are the ones that move here.
    @Test func theLegacyInstrumentStreamIsSentAndDropped() throws {
        try withRunningPair(tag: "mir5", watch: ["--instrument-stream"]) { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            #expect(try pair.status("phone")["instrumentValuesDiscarded"] == .integer(0))
            try pair.phoneRun(["start"])
            try pair.waitUntil("mirroring is confirmed", timeout: 2) { try pair.mirroringState() == "confirmed" }
            try pair.waitUntil("the phone dropped an instrument value", timeout: 10) {
                (try pair.status("phone")["instrumentValuesDiscarded"]?.intValue ?? 0) >= 1
            }
            #expect((try pair.status("phone")["receivedMessages"]?.intValue ?? 0) >= 1)
            try pair.phoneRun(["sample", "--t", "60", "--distance-m", "250", "--pace", "4:00", "--hr", "150"])
            try pair.stopPhoneRun()
            try pair.expectDrainedAndClean()
        }
    }
}
