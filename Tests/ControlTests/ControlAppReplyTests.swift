import Control
import JSONText
import Testing

/// The replies typed in issue 29's second round: each is compared whole with the JSON the daemons built
/// by hand before (spelled here as they spelled it), byte for byte, and read back from that JSON to the
/// same value — which `runway … --json` prints again, so it too is what it was.
@Suite struct ControlAppReplyTests {
    /// `reply` encodes to `old`'s text, and `old` decodes to `reply`.
    func expectWire<Reply: ControlReply>(_ reply: Reply, _ old: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(reply.json.text == old.text, sourceLocation: sourceLocation)
        let read = try Reply(json: old, replyTo: "test")
        #expect(read == reply, sourceLocation: sourceLocation)
        #expect(read.json.text == old.text, sourceLocation: sourceLocation)
    }

    @Test func theLanguageRepliesAreTheOnesThePhoneWrote() throws {
        var language = LanguageReply(
            supported: ["ko", "en", "ja"], developmentRegion: "ko", appLanguage: nil, systemLanguages: ["fr", "en_US"], effective: "en", source: "system")
        var old: [String: JSONValue] = [
            "supported": .array([.string("ko"), .string("en"), .string("ja")]), "developmentRegion": .string("ko"), "appLanguage": .null,
            "systemLanguages": .array([.string("fr"), .string("en_US")]), "effective": .string("en"), "source": .string("system"),
        ]
        try expectWire(language, .object(old))
        language.appLanguage = "ja"
        language.changed = true
        language.rewrittenReminders = ["runway.reminder.7d"]
        old["appLanguage"] = .string("ja")
        old["changed"] = .bool(true)
        old["rewrittenReminders"] = .array([.string("runway.reminder.7d")])
        try expectWire(language, .object(old))
        try expectWire(
            StringsReply(language: "ko", strings: ["settingsLanguage": "언어"]),
            .object(["language": .string("ko"), "strings": .object(["settingsLanguage": .string("언어")])]))
        try expectWire(
            SettingsReply(language: "en", rows: [.init(key: "settingsLanguage", title: "Language", value: "en", opens: "system settings")]),
            .object([
                "language": .string("en"),
                "rows": .array([
                    .object(["key": .string("settingsLanguage"), "title": .string("Language"), "value": .string("en"), "opens": .string("system settings")])
                ]),
            ]))
    }

    @Test func thePreflightAndUpdateRepliesAreTheOnesThePhoneWrote() throws {
        var preflight = PreflightReply(
            appleWatch: .init(label: "READY", ok: true), heartRateMode: .init(available: true), paired: true, watchAppInstalled: true, reachable: false,
            activationState: "activated", rule: "current", appVersion: "1.4", watchAppVersion: nil, versionMismatch: nil)
        var old: [String: JSONValue] = [
            "appleWatch": .object(["label": .string("READY"), "ok": .bool(true)]), "heartRateMode": .object(["available": .bool(true)]),
            "paired": .bool(true), "watchAppInstalled": .bool(true), "reachable": .bool(false), "activationState": .string("activated"),
            "rule": .string("current"), "appVersion": .string("1.4"), "watchAppVersion": .null, "versionMismatch": .null,
        ]
        try expectWire(preflight, .object(old))
        preflight.watchAppVersion = "1.3"
        preflight.versionMismatch = true
        preflight.watchSentence = "update the watch"
        old["watchAppVersion"] = .string("1.3")
        old["versionMismatch"] = .bool(true)
        old["watchSentence"] = .string("update the watch")
        try expectWire(preflight, .object(old))

        try expectWire(
            AppStoreReply(answer: nil, mode: "network", delayMs: 0, lookups: 2, lastURL: nil),
            .object(["answer": .null, "mode": .string("network"), "delayMs": .integer(0), "lookups": .integer(2), "lastURL": .null]))
        try expectWire(
            UpdateCheckReply(outcome: "failed", store: nil, installed: "1.4", lastCheckedAt: nil, reason: "invalid-json"),
            .object([
                "outcome": .string("failed"), "store": .null, "installed": .string("1.4"), "lastCheckedAt": .null, "reason": .string("invalid-json"),
            ]))
        try expectWire(
            UpdateCheckReply(outcome: "update", store: "1.5", installed: "1.4", lastCheckedAt: "2026-10-01T07:00:00Z"),
            .object(["outcome": .string("update"), "store": .string("1.5"), "installed": .string("1.4"), "lastCheckedAt": .string("2026-10-01T07:00:00Z")]))
        let alert = UpdateAlert(
            version: "1.5", storeURL: "https://x", title: "T", message: "M", buttons: ["Update", "Later"], buttonTitles: ["업데이트", "나중에"], language: "ko")
        let oldAlert: JSONValue = .object([
            "event": .string("updateAvailable"), "version": .string("1.5"), "storeURL": .string("https://x"), "title": .string("T"),
            "message": .string("M"), "buttons": .array([.string("Update"), .string("Later")]),
            "buttonTitles": .array([.string("업데이트"), .string("나중에")]), "language": .string("ko"),
        ])
        #expect(alert.json == oldAlert)
        try expectWire(
            UpdateStatusReply(installed: "1.4", lastCheckedAt: nil, alert: nil, checking: false, running: true),
            .object(["installed": .string("1.4"), "lastCheckedAt": .null, "alert": .null, "checking": .bool(false), "running": .bool(true)]))
        try expectWire(
            UpdateStatusReply(installed: "1.4", lastCheckedAt: "t", alert: alert, checking: true, running: false),
            .object(["installed": .string("1.4"), "lastCheckedAt": .string("t"), "alert": oldAlert, "checking": .bool(true), "running": .bool(false)]))
        try expectWire(UpdateRespondReply(response: "later"), .object(["response": .string("later")]))
        try expectWire(UpdateRespondReply(response: "update", opened: "https://x"), .object(["response": .string("update"), "opened": .string("https://x")]))
        try expectWire(TestRunStateReply(running: true), .object(["running": .bool(true)]))
    }

    @Test func theAppsListsAreTheOnesTheAppsWrote() throws {
        let files = FilesReply(
            outstanding: [
                .init(
                    transferId: 4, name: "a.gpx", path: "/c/a.gpx", bytes: 10, sha256: "ab", completedBytes: 3, isTransferring: true,
                    metadata: ["kind": .string("route")])
            ],
            received: [.init(from: "W", transferId: 2, name: "b.gpx", path: "/c/b.gpx", bytes: 5, sha256: "cd", receivedAt: "t", metadata: nil)])
        try expectWire(
            files,
            .object([
                "outstanding": .array([
                    .object([
                        "transferId": .integer(4), "name": .string("a.gpx"), "path": .string("/c/a.gpx"), "bytes": .integer(10), "sha256": .string("ab"),
                        "completedBytes": .integer(3), "isTransferring": .bool(true), "metadata": .object(["kind": .string("route")]),
                    ])
                ]),
                "received": .array([
                    .object([
                        "from": .string("W"), "transferId": .integer(2), "name": .string("b.gpx"), "path": .string("/c/b.gpx"), "bytes": .integer(5),
                        "sha256": .string("cd"), "receivedAt": .string("t"),
                    ])
                ]),
            ]))
        // `received` is an array, as it always was; its items are typed JSON, numbers kept as they came.
        let received: JSONValue = .array([.object(["n": .integer(1), "x": .number(1.5), "d": .object(["$date": .string("t")])])])
        try expectWire(ReceivedReply([["n": .integer(1), "x": .number(1.5), "d": .object(["$date": .string("t")])]]), received)
        try expectWire(ReceivedReply([]), .array([]))
        #expect(throws: ControlError.self) { try ReceivedReply(json: .object([:]), replyTo: "received") }
        #expect(throws: ControlError.self) { try ReceivedReply(json: .string("x"), replyTo: "received") }

        try expectWire(
            GroupsReply(view: "logbook", remembered: ["2026-09": false]),
            .object(["view": .string("logbook"), "remembered": .object(["2026-09": .bool(false)])]))
        try expectWire(
            GroupSetReply(view: "alerts", key: "2026-09", expanded: true),
            .object(["view": .string("alerts"), "key": .string("2026-09"), "expanded": .bool(true)]))
        try expectWire(GroupsResetReply(view: "logbook", forgotten: 3), .object(["view": .string("logbook"), "forgotten": .integer(3)]))
        try expectWire(DeleteReply(deleted: "A"), .object(["deleted": .string("A")]))
        try expectWire(AttachReply(drained: 2), .object(["attached": .bool(true), "drained": .integer(2)]))
    }

    @Test func theNotificationRepliesAreTheOnesTheOSAndThePhoneWrote() throws {
        let pending = NotificationItem(id: "p", fireAt: "f", title: "RunWay", body: "b", language: "ko", fireAtSeconds: 1.5)
        let delivered = NotificationItem(
            id: "d", fireAt: "f", deliveredAt: "f", title: "RunWay", body: "b", language: "", fireAtSeconds: 100, deliveredAtSeconds: 100)
        try expectWire(
            NotificationsReply(pendingLimit: 64, pending: [pending], delivered: [delivered]),
            .object([
                "pendingLimit": .integer(64),
                "pending": .array([
                    .object([
                        "id": .string("p"), "fireAt": .string("f"), "title": .string("RunWay"), "body": .string("b"), "language": .string("ko"),
                        "fireAtSeconds": .number(1.5),
                    ])
                ]),
                "delivered": .array([
                    .object([
                        "id": .string("d"), "fireAt": .string("f"), "deliveredAt": .string("f"), "title": .string("RunWay"), "body": .string("b"),
                        "language": .string(""), "fireAtSeconds": .number(100), "deliveredAtSeconds": .number(100),
                    ])
                ]),
            ]))
        // The reminders' own listing: no seconds; the delivered ones without their language.
        try expectWire(
            RemindersReply(
                rule: "current", lastRunAt: nil, pending: [NotificationItem(id: "r", fireAt: "f", title: "T", body: "B", language: "ko")],
                delivered: [NotificationItem(id: "s", fireAt: "f", deliveredAt: "g", title: "T", body: "B", language: nil)]),
            .object([
                "rule": .string("current"), "lastRunAt": .null,
                "pending": .array([
                    .object(["id": .string("r"), "fireAt": .string("f"), "title": .string("T"), "body": .string("B"), "language": .string("ko")])
                ]),
                "delivered": .array([
                    .object(["id": .string("s"), "fireAt": .string("f"), "deliveredAt": .string("g"), "title": .string("T"), "body": .string("B")])
                ]),
            ]))
        try expectWire(
            NotificationAddReply(added: "x", dropped: ["y"]), .object(["added": .string("x"), "dropped": .array([.string("y")])]))
        try expectWire(NotificationsReplaceReply(dropped: []), .object(["dropped": .array([])]))
        try expectWire(RemoveDeliveredReply(), .object(["removed": .bool(true)]))
        try expectWire(
            OSClockEvent(mode: "frozen", offsetSeconds: 0, now: 1.8e9),
            .object(["event": .string("clock"), "mode": .string("frozen"), "offsetSeconds": .number(0), "now": .number(1.8e9)]))
        try expectWire(
            ClockReply(now: "n", mode: "running", offsetSeconds: 60, delivered: [delivered]),
            .object(["now": .string("n"), "mode": .string("running"), "offsetSeconds": .number(60), "delivered": .array([delivered.json])]))
    }

    @Test func switchWatchAndTheFaultsAreTheOnesTheDevicesWrote() throws {
        try expectWire(
            SwitchWatchReply(switched: false, activeWatch: "W", watchHome: "/w", message: "already"),
            .object(["switched": .bool(false), "activeWatch": .string("W"), "watchHome": .string("/w"), "message": .string("already")]))
        // A switch says the watch before it, null when there was none.
        try expectWire(
            SwitchWatchReply(switched: true, activeWatch: "W", watchHome: "/w", previousWatch: nil, by: "phone-os", message: "now"),
            .object([
                "switched": .bool(true), "activeWatch": .string("W"), "watchHome": .string("/w"), "previousWatch": .null, "by": .string("phone-os"),
                "message": .string("now"),
            ]))
        try expectWire(
            SwitchWatchReply(switched: true, activeWatch: "W", watchHome: "/w", previousWatch: "V", by: "app", message: "now"),
            .object([
                "switched": .bool(true), "activeWatch": .string("W"), "watchHome": .string("/w"), "previousWatch": .string("V"), "by": .string("app"),
                "message": .string("now"),
            ]))
        try expectWire(StoreLimitReply(pages: 40), .object(["pages": .integer(40)]))
        try expectWire(InboxSpaceLimitReply(bytes: 0), .object(["bytes": .integer(0)]))
        try expectWire(ReceiveHoldReply(held: true), .object(["held": .bool(true)]))
        try expectWire(WorkoutFaultReply(workoutStart: "refuse"), .object(["workoutStart": .string("refuse")]))
    }

    /// What stays JSON, and why, is said in the catalogue's reference: the rest of the catalogue is typed.
    @Test func onlyTheRecordsAndTheStreamsStayJSON() {
        let untyped = ControlCommands.all.filter { spec in spec.servers.contains { spec.replyTypes[$0] == nil } }.map(\.name)
        #expect(untyped.sorted() == ["alerts", "events", "flight", "logbook"])
    }
}
