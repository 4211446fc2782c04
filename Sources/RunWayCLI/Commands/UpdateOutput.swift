import Control
import JSONText
import Posix
import RunWayDomain
import TerminalViews

// MARK: - RunWay's phone app before a run: the pre-flight row, the update notice and the App Store it asks

extension Render {
    static let update: [Render] = [
        .of(ControlCommands.Preflight.self) { reply, _, _ in
            var lines = [
                "PRE-FLIGHT CHECK", "  APPLE WATCH      \(reply.appleWatch.label)",
                "  HEART RATE MODE  \(reply.heartRateMode.available ? "available" : "unavailable")",
            ]
            if reply.versionMismatch == true {
                lines.append("  VERSION          WATCH APP \(reply.watchAppVersion ?? "?") ≠ PHONE APP \(reply.appVersion)")
                if let sentence = reply.watchSentence { lines.append("  \(sentence)") }
            }
            return lines.joined(separator: "\n")
        },
        .of(ControlCommands.AppstoreSet.self) { reply, _, _ in "the App Store lookup now answers \(reply.answer ?? "")" },
        .of(ControlCommands.AppstoreFail.self) { _, _, _ in "the App Store lookup now fails (network)" },
        .of(ControlCommands.AppstoreShow.self) { reply, _, _ in
            """
            answer   \(reply.answer ?? "(fails: network)")
            delay    \(reply.delayMs) ms
            lookups  \(reply.lookups)
            last URL \(reply.lastURL ?? "-")
            """
        },
        .of(ControlCommands.UpdateCheck.self) { reply, _, _ in
            reply.outcome + " (installed \(reply.installed)" + (reply.store.map { ", store \($0)" } ?? "") + (reply.reason.map { ", \($0)" } ?? "") + ")"
        },
        .of(ControlCommands.UpdateStatus.self) { reply, _, _ in
            """
            installed        \(reply.installed)
            last checked     \(reply.lastCheckedAt ?? "never")
            alert            \(reply.alert.map { "RunWay \($0.version) available" } ?? "none")
            """
        },
        .of(ControlCommands.UpdateRespond.self) { reply, _, _ in reply.opened ?? "later" },
    ]
}

/// `--version V [--url URL]`, or `--json-file F` (its text as the answer, as it is).
extension ControlCommands.AppstoreSet: CLIPrepared {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        switch (arguments["version"]?.stringValue, context.parsed.value("json-file")) {
        case let (version?, nil):
            if let problem = AppVersion.problem(version) { throw ControlError.invalid("--version: \(problem)") }
        case let (nil, path?):
            guard arguments["url"] == nil else { throw ControlError.invalid("--url goes with --version, not with --json-file") }
            let bytes: [UInt8]
            do { bytes = path == "-" ? try SessionCLI.readStandardInput() : try Filesystem.readFile(path) } catch {
                throw ControlError.invalid("cannot read \(path): \(error)")
            }
            arguments["body"] = .string(String(decoding: bytes, as: UTF8.self))
        default:
            throw ControlError.invalid("give either --version V or --json-file F")
        }
    }
}

enum UpdateText {
    /// The widest an alert's text runs, in display columns: a phone's alert is narrow, and a box this wide
    /// fits an 80-column terminal with the events pane's margin.
    static let alertColumns = 56

    /// The alert as a boxed block ending with its buttons in the app's language (`[업데이트] [나중에]`,
    /// `[Update] [Later]`), its text wrapped and its border aligned in display columns: Korean and
    /// Japanese characters take two.
    static func alertBox(_ event: JSONValue) -> String {
        let title = event["title"]?.stringValue ?? ""
        let message = event["message"]?.stringValue ?? ""
        // The titles the app shows (`buttonTitles`); `buttons` are the words `update respond` takes.
        let titles = (event["buttonTitles"]?.arrayValue ?? event["buttons"]?.arrayValue ?? []).compactMap(\.stringValue)
        let buttons = titles.map { "[\($0)]" }.joined(separator: " ")
        let body =
            TextWidth.wrap(title, alertColumns) + TextWidth.wrap(message, alertColumns)
            + ["(\(event["storeURL"]?.stringValue ?? ""))", buttons]  // the URL whole: it is copied
        let width = body.map(TextWidth.of).max() ?? 0
        let rule = "+" + String(repeating: "-", count: width + 2) + "+"
        return ([rule] + body.map { "| " + TextWidth.pad($0, width) + " |" } + [rule]).joined(separator: "\n")
    }
}
