import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayApp
import Testing

/// Text by display columns (issue 28, item 5): the phone's screen on a real pseudo-terminal in ko, en and
/// ja shows the update alert boxed with its border straight — Korean and Japanese characters take two
/// columns on the terminal, and the box is measured so — and its buttons in the app's language. The screen
/// is read back by `ScreenEmulator`, whose cells come from the C library's `wcwidth`, not from the table
/// `runway` measures with.
@Suite(.serialized) struct WideTextTests {
    @Test(arguments: [AppLanguage.ko, .en, .ja])
    func theUpdateAlertIsBoxedByColumnsInTheAppsLanguage(language: AppLanguage) throws {
        try withRunningPair(tag: "wide-\(language.rawValue)", phone: ["--app-version", "1.3.1"]) { pair in
            let set = try runTool(["phone", "language", "set", language.rawValue, "--home", pair.phoneHome])
            #expect(set.status == 0, "\(set.stderr)")
            let store = "https://apps.apple.com/app/runway/id6740000000"
            #expect(try runTool(["appstore", "set", "--version", "1.5", "--url", store, "--home", pair.phoneHome]).status == 0)
            try pair.record(1)
            try pair.waitUntilDrained()

            let buttons = "[\(AppTexts.text(.updateButtonUpdate, language))] [\(AppTexts.text(.updateButtonLater, language))]"
            let ui = try TerminalTool(["phone", "ui", "--home", pair.phoneHome], columns: 100, rows: 50)
            try ui.waitForScreen("the update alert") { $0.text.contains(buttons) }
            let screen = ui.screen
            ui.signal(SIGTERM)
            #expect(ui.wait() == 0)

            // The box: from its top rule to its bottom rule, every row's borders in the same cells.
            let rules = screen.lines.indices.filter { screen.lines[$0].contains("+----") }
            #expect(rules.count == 2, "\(screen.text)")
            guard rules.count == 2 else { return }
            let left = screen.cells(of: "+", inRow: rules[0]).first, right = screen.cells(of: "+", inRow: rules[0]).last
            #expect(screen.cells(of: "+", inRow: rules[1]) == [left!, right!])
            for row in (rules[0] + 1)..<rules[1] {
                let bars = screen.cells(of: "|", inRow: row)
                #expect(bars.first == left && bars.last == right, "row \(row) '\(screen.lines[row])': borders at \(bars), not \(left!), \(right!)")
            }
            // The app's words, whole: title, buttons, the store's URL on one line; nothing wider than the terminal.
            let box = screen.lines[rules[0]...rules[1]].joined(separator: "\n")
            #expect(box.contains(AppTexts.text(.updateTitle, language)))
            #expect(box.contains(buttons))
            #expect(box.contains("(\(store))"))
            #expect(right! < 100)
            if language != .en { #expect(!box.contains("[Update]"), "the buttons are the app's, in its language") }
            try pair.expectClean(stored: 1)
        }
    }
}
