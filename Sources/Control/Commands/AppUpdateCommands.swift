// MARK: - The phone app's update notice and the simulated App Store it asks: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appUpdateCommands: [any ControlCommand.Type] = [
        AppstoreSet.self, AppstoreFail.self, AppstoreShow.self, UpdateCheck.self, UpdateStatus.self, UpdateRespond.self, TestRunState.self,
    ]

    /// The simulated App Store's delay, which `appstore-set` and `appstore-fail` take.
    package enum Appstore {
        package static let delayMs = ControlArgument<Int>("delayMs", .int(0...600_000), default: 0, "the answer comes this many ms after the lookup")
    }

    /// `appstore-set`: what the simulated App Store answers the app's lookup.
    package enum AppstoreSet: ControlCommand {
        package typealias Reply = AppStoreReply
        package static let version = ControlArgument<String?>("version", .string(bytes: 1...textBytes), "the store's version, N(.N){0,3}")
        package static let url = ControlArgument<String?>("url", .string(bytes: 0...textBytes), "the trackViewUrl, verbatim (with version)")
        package static let body = ControlArgument<String?>("body", .string(bytes: 0...textBytes), "the answer's raw text, instead of version")
        package static let delayMs = Appstore.delayMs
        package static let spec = ControlCommandSpec(
            Self.self, "appstore-set", [.phone], arguments: [version, url, body, delayMs],
            errors: [.invalid("neither version nor body, or a version that is not N(.N){0,3}")], "the simulated App Store's answer")
    }

    /// `appstore-fail`: the lookup fails.
    package enum AppstoreFail: ControlCommand {
        package typealias Reply = AppStoreReply
        package static let delayMs = Appstore.delayMs
        package static let spec = ControlCommandSpec(Self.self, "appstore-fail", [.phone], arguments: [delayMs], "make the App Store lookup fail")
    }

    /// `appstore-show`: the simulated App Store's answer as it stands.
    package enum AppstoreShow: ControlCommand {
        package typealias Reply = AppStoreReply
        package static let spec = ControlCommandSpec(Self.self, "appstore-show", [.phone], "the simulated App Store")
    }

    /// `update-check`: look now. Its handler answers later, when the lookup is done.
    package enum UpdateCheck: ControlCommand {
        package typealias Reply = UpdateCheckReply
        package static let spec = ControlCommandSpec(Self.self, "update-check", [.phone], "look for a newer version now")
    }

    /// `update-status`: the update notice.
    package enum UpdateStatus: ControlCommand {
        package typealias Reply = UpdateStatusReply
        package static let spec = ControlCommandSpec(Self.self, "update-status", [.phone], "the update notice")
    }

    /// `update-respond`: a button of the update alert.
    package enum UpdateRespond: ControlCommand {
        package typealias Reply = UpdateRespondReply
        package static let answer = ControlArgument<String>("answer", .choice(["update", "later"]), required: true, "the button")
        package static let spec = ControlCommandSpec(
            Self.self, "update-respond", [.phone], arguments: [answer], errors: [.failure("no update alert is showing")], "answer the update alert")
    }

    /// `test-run-state`: fault injection, as if a run were in progress (the alert waits for its end).
    package enum TestRunState: ControlCommand {
        package typealias Reply = TestRunStateReply
        package static let running = ControlArgument<Bool>("running", .bool, default: false, "whether a run is in progress")
        package static let spec = ControlCommandSpec(
            Self.self, "test-run-state", [.phone], test: true, arguments: [running], "pretend a run is in progress")
    }
}
