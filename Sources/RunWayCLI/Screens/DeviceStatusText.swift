import Control
import JSONText
import TerminalViews

/// `runway phone status` / `runway watch status` for people: the device's `status` in labelled sections —
/// SESSION, LINK, OUTBOX, INBOX, APP, OS — each value said in words (`--json` prints the object as it
/// came). A field no row knows still shows, under OTHER: a new field is never hidden.
enum DeviceStatusText {
    /// One row: its label, the fields it reads, and its text (nil: not shown for this device).
    struct Row {
        let section: String
        let label: String
        let keys: [String]
        let text: ([String: JSONValue]) -> String?
    }

    static let sections = ["SESSION", "LINK", "OUTBOX", "INBOX", "APP", "OS", "OTHER"]

    static func render(_ status: JSONValue, os: OSStatusReply? = nil) -> String {
        guard let fields = status.objectValue else { return status.text }
        let role = fields["role"]?.stringValue ?? "?"
        let other = role == "phone" ? "watch" : "phone"
        var shown: [(section: String, label: String, text: String)] = []
        var used = Set<String>()
        for row in rows(role: role, other: other) where row.keys.contains(where: { fields[$0] != nil }) {
            guard let text = row.text(fields) else { continue }
            shown.append((row.section, row.label, text))
            used.formUnion(row.keys)
        }
        for key in fields.keys.sorted() where !used.contains(key) {
            let value = fields[key]!
            shown.append(("OTHER", key, value.stringValue ?? value.text))
        }
        if let os { shown += osRows(os) }
        let width = (shown.map { TextWidth.of($0.label) }.max() ?? 0) + 2
        var lines: [String] = []
        for section in sections {
            let rows = shown.filter { $0.section == section }
            guard !rows.isEmpty else { continue }
            if !lines.isEmpty { lines.append("") }
            lines.append(section)
            lines += rows.map { "  " + $0.label + String(repeating: " ", count: max(1, width - TextWidth.of($0.label))) + $0.text }
        }
        return lines.joined(separator: "\n")
    }

    static func rows(role: String, other: String) -> [Row] { sessionRows(role: role, other: other) + appRows(role: role, other: other) }

    private static func int(_ fields: [String: JSONValue], _ key: String) -> Int { fields[key]?.intValue ?? 0 }
    private static func int(_ fields: [String: JSONValue], _ object: String, _ key: String) -> Int { fields[object]?[key]?.intValue ?? 0 }
    private static func yes(_ value: JSONValue?) -> String { value?.boolValue == true ? "yes" : "no" }

    /// The session's, the link's, the outbox's and the inbox's rows.
    private static func sessionRows(role: String, other: String) -> [Row] {
        let counterpart = role == "phone" ? "watchDeviceId" : "phoneDeviceId"
        return [
            Row(section: "SESSION", label: "activation", keys: ["activationState"]) { $0["activationState"]?.stringValue },
            Row(section: "SESSION", label: "paired", keys: ["paired", "pairingId"]) { fields in
                fields["paired"]?.boolValue == true ? "yes, pairing " + (fields["pairingId"]?.stringValue ?? "?") : "no (runway pair)"
            },
            Row(section: "SESSION", label: "this \(role)", keys: ["deviceId", "role"]) { $0["deviceId"]?.stringValue },
            Row(section: "SESSION", label: "its \(other)", keys: ["counterpartDeviceId", counterpart]) {
                $0["counterpartDeviceId"]?.stringValue ?? $0[counterpart]?.stringValue
            },
            Row(section: "SESSION", label: "active watch", keys: ["activeWatch"]) { $0["activeWatch"]?.stringValue },
            Row(section: "SESSION", label: "paired watches", keys: ["pairedWatches"]) { fields in
                guard let watches = fields["pairedWatches"]?.arrayValue, !watches.isEmpty else { return nil }
                return "\(watches.count): "
                    + watches.map { watch in
                        let home = watch["home"]?.stringValue ?? ""
                        let queued = watch["queuedWhileInactive"]?.intValue ?? 0
                        return (watch["deviceId"]?.stringValue ?? "?") + (home.isEmpty ? "" : " (\(home))")
                            + (watch["active"]?.boolValue == true ? " active" : queued > 0 ? " \(queued) transfer(s) queued for it" : "")
                    }.joined(separator: "; ")
            },
            Row(section: "LINK", label: "connected", keys: ["linked", "linkEnabled", "linkRange"]) { fields in
                yes(fields["linked"]) + (fields["linkEnabled"]?.boolValue == false ? " — out of range (runway link up)" : "")
                    + (fields["linkRange"]?.stringValue == "out" ? " — out of range (runway link set --range near)" : "")
                    + (fields["linkRange"]?.stringValue == "wifi" ? " — through the Wi-Fi relay (runway link show)" : "")
            },
            Row(section: "LINK", label: "reachable", keys: ["reachable"]) { yes($0["reachable"]) },
            Row(section: "LINK", label: "phone's socket", keys: ["phoneLinkSocket"]) { $0["phoneLinkSocket"]?.stringValue },
            Row(section: "OUTBOX", label: "outstanding", keys: ["outstandingUserInfoTransfers"]) {
                "\(int($0, "outstandingUserInfoTransfers")) userInfo transfer(s) not yet delivered to the \(other)"
            },
            Row(section: "OUTBOX", label: "files", keys: ["outstandingFileTransfers", "fileSending"]) { fields in
                "\(int(fields, "outstandingFileTransfers")) file transfer(s) not yet delivered"
                    + (fields["fileSending"].map {
                        ", sending \($0["transferId"]?.intValue ?? 0): \($0["durableBytes"]?.intValue ?? 0) of \($0["bytes"]?.intValue ?? 0) bytes there"
                    } ?? "")
            },
            Row(section: "INBOX", label: "file arriving", keys: ["fileReceiving", "inboxSpaceLimit"]) { fields in
                guard let file = fields["fileReceiving"] else { return fields["inboxSpaceLimit"].map { "none (space capped at \($0.intValue ?? 0) bytes)" } }
                return "\(file["transferId"]?.intValue ?? 0): \(file["durableBytes"]?.intValue ?? 0) of \(file["bytes"]?.intValue ?? 0) bytes durable"
            },
            Row(section: "OUTBOX", label: "context", keys: ["applicationContextPending"]) { fields in
                fields["applicationContextPending"]?.boolValue == true
                    ? "the application context set here is not yet delivered to the \(other)" : "delivered (or none set)"
            },
            Row(section: "OUTBOX", label: "on the wire", keys: ["outbox"]) { fields in
                "\(int(fields, "outbox", "inFlight")) of a window of \(int(fields, "outbox", "window")); last sent \(int(fields, "outbox", "lastSentTransfer")), acknowledged up to \(int(fields, "outbox", "lastAcknowledgedTransfer")); \(int(fields, "outbox", "depth")) queued"
            },
            Row(section: "INBOX", label: "received", keys: ["receivedTransfers", "receivedFromWatchSeq"]) { fields in
                "\(int(fields, "receivedTransfers")) transfer(s)" + (fields["receivedFromWatchSeq"].map { " (the watch's up to \($0.intValue ?? 0))" } ?? "")
            },
            Row(section: "INBOX", label: "for the app", keys: ["inbox"]) { fields in
                "\(int(fields, "inbox", "receivedUserInfo")) userInfo that are not flights, \(int(fields, "inbox", "receivedFiles")) file(s) kept, \(int(fields, "inbox", "depth")) waiting"
            },
            Row(section: "INBOX", label: "messages", keys: ["receivedMessages", "receivedMessagesWithoutReply", "receivedMessageData", "lastMessageDataBytes"])
            {
                fields in
                "\(int(fields, "receivedMessages")) received, \(int(fields, "receivedMessagesWithoutReply")) without a reply handler, \(int(fields, "receivedMessageData")) of them data"
                    + (fields["lastMessageDataBytes"].map { " (the last \($0.intValue ?? 0) bytes)" } ?? "")
            },
            Row(section: "INBOX", label: "quarantined", keys: ["quarantined"]) {
                "\(int($0, "quarantined"))" + (int($0, "quarantined") > 0 ? " (runway \(role) quarantine)" : "")
            },
            Row(section: "INBOX", label: "failed commits", keys: ["failedReceiveCommits"]) { fields in
                "\(int(fields, "failedReceiveCommits"))" + (int(fields, "failedReceiveCommits") > 0 ? " (rolled back, resent by the \(other))" : "")
            },
        ]
    }

    /// The app's rows (anyone's; RunWay's own where its status has them) and the OS's.
    private static func appRows(role: String, other: String) -> [Row] {
        let counterpartVersion = role == "phone" ? "watchAppVersion" : "phoneAppVersion"
        return [
            Row(section: "APP", label: "app", keys: ["app"]) { fields in
                guard let app = fields["app"] else { return nil }
                let pid = app["pid"]?.intValue.map { ", pid \($0)" } ?? ""
                let executable = app["executable"]?.stringValue.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? ""
                return (app["bundleId"]?.stringValue ?? "?") + pid + executable
            },
            Row(section: "APP", label: "version", keys: ["appVersion", "counterpartAppVersion", counterpartVersion, "versionMismatch"]) { fields in
                let theirs = fields["counterpartAppVersion"]?.stringValue ?? fields[counterpartVersion]?.stringValue ?? "?"
                return "\(fields["appVersion"]?.stringValue ?? "?"); the \(other) app's \(theirs)"
                    + (fields["versionMismatch"]?.boolValue == true ? " — THEY DIFFER" : "")
            },
            Row(section: "APP", label: "watch app", keys: ["watchAppInstalled", "watchAppActive"]) { fields in
                (fields["watchAppInstalled"]?.boolValue == true ? "installed" : "not installed")
                    + (fields["watchAppActive"].map { $0.boolValue == true ? ", foreground" : ", background" } ?? "")
            },
            Row(
                section: "APP", label: "complication",
                keys: ["complicationEnabled", "remainingComplicationUserInfoTransfers", "outstandingComplicationTransfers", "complication"]
            ) { fields in
                (fields["complicationEnabled"]?.boolValue == true ? "on the watch face" : "not on the watch face")
                    + (fields["remainingComplicationUserInfoTransfers"].map { ", \($0.intValue ?? 0) of 50 transfers left today" } ?? "")
                    + (int(fields, "outstandingComplicationTransfers") > 0 ? ", \(int(fields, "outstandingComplicationTransfers")) queued" : "")
                    + (fields["complication"].map { ", \($0["updates"]?.intValue ?? 0) update(s) received" } ?? "")
            },
            Row(section: "APP", label: "phone app", keys: ["companionAppInstalled"]) { fields in
                fields["companionAppInstalled"]?.boolValue == false ? "not installed (isCompanionAppInstalled false)" : "installed"
            },
            Row(section: "LINK", label: "phone unlocked", keys: ["iOSDeviceNeedsUnlockAfterReboot"]) { fields in
                fields["iOSDeviceNeedsUnlockAfterReboot"]?.boolValue == true ? "no: not unlocked since it restarted, unreachable" : "yes"
            },
            Row(section: "INBOX", label: "content pending", keys: ["hasContentPending"]) { yes($0["hasContentPending"]) },
            Row(section: "APP", label: "flights", keys: ["flights"]) { "\(int($0, "flights")) stored" },
            Row(section: "APP", label: "save path", keys: ["savePath", "pendingWatchDataQueue"]) { fields in
                (fields["savePath"]?.stringValue ?? "?")
                    + (int(fields, "pendingWatchDataQueue") > 0 ? ", \(int(fields, "pendingWatchDataQueue")) flight(s) held for a UI" : "")
            },
            Row(section: "APP", label: "health saves", keys: ["healthDecisionsPending"]) { fields in
                "\(int(fields, "healthDecisionsPending")) run(s) whose Health save is not settled yet"
            },
            Row(section: "APP", label: "UI attached", keys: ["uiClients"]) { "\(int($0, "uiClients"))" },
            Row(section: "APP", label: "reminders", keys: ["reminderRule", "remindersRescheduled"]) { fields in
                "\(fields["reminderRule"]?.stringValue ?? "?") rule, rescheduled \(int(fields, "remindersRescheduled")) time(s)"
            },
            Row(section: "APP", label: "language", keys: ["language", "languageSource"]) { fields in
                (fields["language"]?.stringValue ?? "?") + (fields["languageSource"]?.stringValue.map { " (from: \($0))" } ?? "")
            },
            Row(section: "APP", label: "live values", keys: ["instrumentValuesDiscarded"]) { "\(int($0, "instrumentValuesDiscarded")) discarded" },
            Row(section: "APP", label: "container", keys: ["container"]) { $0["container"]?["path"]?.stringValue },
            Row(section: "APP", label: "state", keys: ["appState", "answeredBy"]) { fields in
                fields["appState"]?.stringValue.map { state in
                    let os = fields["answeredBy"]?.stringValue ?? "phone-os"
                    let device = os == "watch-os" ? "watch" : "phone"
                    return "\(state) (\(os) answers while the app does not run: runway \(device) app open)"
                }
            },
            Row(section: "APP", label: "waiting for it", keys: ["waitingForApp"]) { fields in
                fields["waitingForApp"].map { waiting in
                    "the watch last said \(waiting["watchPendingTransfers"]?.intValue ?? 0) transfer(s) and \(waiting["watchPendingMessages"]?.intValue ?? 0) message(s)"
                        + (waiting["seenAt"]?.stringValue.map { " (at \($0))" } ?? "")
                }
            },
            Row(section: "OS", label: "Health", keys: ["healthWorkouts"]) { "\(int($0, "healthWorkouts")) workout(s)" },
            // The system's own timing (docs/system-timing.md): `immediate, 0 deferred, 0 waiting`.
            Row(section: "OS", label: "system timing", keys: ["systemTiming"]) { fields in
                fields["systemTiming"].map { timing in
                    let reasons = (timing["byReason"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.intValue ?? 0)" }
                    return (timing["system"]?.stringValue ?? "?") + ", \(timing["deferred"]?.intValue ?? 0) deferred"
                        + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))") + ", \(timing["waiting"]?.intValue ?? 0) waiting"
                        + (timing["nextDueInMs"]?.intValue.map { ", the next in \($0) ms" } ?? "")
                }
            },
            Row(section: "OS", label: "process", keys: ["pid", "home"]) { fields in
                "pid \(int(fields, "pid")), home \(fields["home"]?.stringValue ?? "?")"
            },
        ]
    }

    /// The phone's iOS, when phone-os runs the phone.
    static func osRows(_ os: OSStatusReply) -> [(section: String, label: String, text: String)] {
        OSStatusText.rows(os).map { ("OS", "phone-os " + $0.label, $0.text) }
    }
}
