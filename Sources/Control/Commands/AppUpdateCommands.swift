// MARK: - The phone app's update notice and the simulated App Store it asks: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appUpdateCommands: [any ControlCommand.Type] = [
        AppstoreSet.self, AppstoreFail.self, AppstoreShow.self, UpdateCheck.self, UpdateStatus.self, UpdateRespond.self, TestRunState.self,
    ]

    /// `appstore-set`: what the simulated App Store answers the app's lookup.
    package struct AppstoreSet: ControlCommand {
        package typealias Reply = AppStoreReply
        @Argument(.string(bytes: 1...textBytes), "the store's version, N(.N){0,3}") package var version: String?
        @Argument(.string(bytes: 0...textBytes), "the trackViewUrl, verbatim (with version)") package var url: String?
        @Argument(.string(bytes: 0...textBytes), "the answer's raw text, instead of version") package var body: String?
        @Argument(.int(0...600_000), "the answer comes this many ms after the lookup") package var delayMs = 0
        package static let spec = ControlCommandSpec(
            Self.self, "appstore-set", [.phone], errors: [.invalid("neither version nor body, or a version that is not N(.N){0,3}")],
            "the simulated App Store's answer")
        package init() {}
    }

    /// `appstore-fail`: the lookup fails.
    package struct AppstoreFail: ControlCommand {
        package typealias Reply = AppStoreReply
        @Argument(.int(0...600_000), "the answer comes this many ms after the lookup") package var delayMs = 0
        package static let spec = ControlCommandSpec(Self.self, "appstore-fail", [.phone], "make the App Store lookup fail")
        package init() {}
    }

    /// `appstore-show`: the simulated App Store's answer as it stands.
    package struct AppstoreShow: ControlCommand {
        package typealias Reply = AppStoreReply
        package static let spec = ControlCommandSpec(Self.self, "appstore-show", [.phone], "the simulated App Store")
        package init() {}
    }

    /// `update-check`: look now. Its handler answers later, when the lookup is done.
    package struct UpdateCheck: ControlCommand {
        package typealias Reply = UpdateCheckReply
        package static let spec = ControlCommandSpec(Self.self, "update-check", [.phone], "look for a newer version now")
        package init() {}
    }

    /// `update-status`: the update notice.
    package struct UpdateStatus: ControlCommand {
        package typealias Reply = UpdateStatusReply
        package static let spec = ControlCommandSpec(Self.self, "update-status", [.phone], "the update notice")
        package init() {}
    }

    /// `update-respond`: a button of the update alert.
    package struct UpdateRespond: ControlCommand {
        package typealias Reply = UpdateRespondReply
        @Argument(.choice(["update", "later"]), "the button") package var answer: String
        package static let spec = ControlCommandSpec(
            Self.self, "update-respond", [.phone], errors: [.failure("no update alert is showing")], "answer the update alert")
        package init() {}
    }

    /// `test-run-state`: fault injection, as if a run were in progress (the alert waits for its end).
    package struct TestRunState: ControlCommand {
        package typealias Reply = TestRunStateReply
        @Argument(.bool, "whether a run is in progress") package var running = false
        package static let spec = ControlCommandSpec(Self.self, "test-run-state", [.phone], test: true, "pretend a run is in progress")
        package init() {}
    }
}
