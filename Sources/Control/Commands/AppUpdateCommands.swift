import Posix

// MARK: - The phone app's update notice and the simulated App Store it asks: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appUpdateCommands: [any ControlCommand.Type] = [
        AppstoreSet.self, AppstoreFail.self, AppstoreShow.self, UpdateCheck.self, UpdateStatus.self, UpdateRespond.self, TestRunState.self,
    ]

    /// `--delay-ms N`, the simulated App Store's delay.
    static let delay = ControlArgumentCLI.option("delay-ms", "N", help: "the answer arrives N ms after the lookup (0-600000, default 0)")

    /// `appstore-set`: what the simulated App Store answers the app's lookup.
    package struct AppstoreSet: ControlCommand {
        package typealias Reply = AppStoreReply
        @Argument(.string(bytes: 1...textBytes), "the store's version, N(.N){0,3}", cli: .option(nil, "V", help: "the store's version, N(.N){0,3}"))
        package var version: String?
        @Argument(.string(bytes: 0...textBytes), "the trackViewUrl, verbatim (with version)", cli: .option(nil, "URL", help: "the trackViewUrl, used verbatim"))
        package var url: String?
        @Argument(.string(bytes: 0...textBytes), "the answer's raw text, instead of version", cli: .hidden) package var body: String?
        @Argument(.int(0...600_000), "the answer comes this many ms after the lookup", cli: delay) package var delayMs = 0
        package static let spec = ControlCommandSpec(
            Self.self, "appstore-set", [.phone], errors: [.invalid("neither version nor body, or a version that is not N(.N){0,3}")],
            "the simulated App Store's answer")
        /// `--json-file F` sets `body`, F's text as it is.
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway,
            [
                .top(["appstore", "set"], .phone) { _, _ in
                    """
                    What the phone's App Store lookup answers from now on: a well-formed iTunes answer for version V
                    (trackViewUrl URL), or the raw text of F as it is (malformed answers allowed: the update check fails
                    silently on them). The phone must be running.
                    """
                }
            ], options: [.option("json-file", "F", "the answer's raw text (- for stdin)")],
            synopsis: "HOME (--version V [--url URL] | --json-file F) [--delay-ms N] [--json]")
        package init() {}
    }

    /// `appstore-fail`: the lookup fails.
    package struct AppstoreFail: ControlCommand {
        package typealias Reply = AppStoreReply
        @Argument(.int(0...600_000), "the answer comes this many ms after the lookup", cli: delay) package var delayMs = 0
        package static let spec = ControlCommandSpec(Self.self, "appstore-fail", [.phone], "make the App Store lookup fail")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway,
            [
                .top(["appstore", "fail", "network"], .phone) { _, _ in
                    "The phone's App Store lookup fails from now on (network: offline). The default before anything is set."
                }
            ])
        package init() {}
    }

    /// `appstore-show`: the simulated App Store's answer as it stands.
    package struct AppstoreShow: ControlCommand {
        package typealias Reply = AppStoreReply
        package static let spec = ControlCommandSpec(Self.self, "appstore-show", [.phone], "the simulated App Store")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway,
            [.top(["appstore", "show"], .phone) { _, _ in "What the phone's App Store lookup answers, the lookups made so far and the last URL asked." }])
        package init() {}
    }

    /// `update-check`: look now. Its handler answers later, when the lookup is done.
    package struct UpdateCheck: ControlCommand {
        package typealias Reply = UpdateCheckReply
        package static let spec = ControlCommandSpec(Self.self, "update-check", [.phone], "look for a newer version now")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["update", "check"]) { _, _ in
            """
            Runs the update check now, by RunWay 1.4's rules (as a UI attaching does), waits for the answer and
            prints the outcome: skipped-today, skipped-running, failed, not-newer, update or suppressed-running.
            An alert goes to every attached UI. A diagnostic: the app itself says nothing on a failure.
            """
        }
        package init() {}
    }

    /// `update-status`: the update notice.
    package struct UpdateStatus: ControlCommand {
        package typealias Reply = UpdateStatusReply
        package static let spec = ControlCommandSpec(Self.self, "update-status", [.phone], "the update notice")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["update", "status"]) { _, _ in
            "The installed version, the day of the last successful check, and the update alert showing, if any."
        }
        package init() {}
    }

    /// `update-respond`: a button of the update alert.
    package struct UpdateRespond: ControlCommand {
        package typealias Reply = UpdateRespondReply
        @Argument(.choice(["update", "later"]), "the button", cli: .positional("update|later") { "respond with update or later, not \(OneLine.quote($0))" })
        package var answer: String
        package static let spec = ControlCommandSpec(
            Self.self, "update-respond", [.phone], errors: [.failure("no update alert is showing")], "answer the update alert")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["update", "respond"]) { _, _ in
            """
            Answers the update alert: update prints the store's trackViewUrl as it came and dismisses the alert;
            later dismisses it. Neither touches the once-a-day check. There is no "skip this version".
            With no alert showing: exit 1.
            """
        }
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
