import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// `runway completion bash|zsh|fish` in the real shells (issue 28, item 3): bash and zsh run
/// interactively on a pseudo-terminal and complete at a typed Tab, as for a person — what they offer is
/// caught where the shell hands it to its line editor (bash's COMPREPLY, zsh's compadd); fish completes
/// through its own engine (`complete -C`). Values come from the command list, the pair registry and the
/// running phone — and, for phone-daemon, watch-agent and phone-os, from their own option lists.
@Suite(.serialized) struct CompletionTests {
    /// What each line completes to, in `shell`, with runway on PATH and the registry in `state`.
    func complete(_ shell: String, _ lines: [String], state: String, directory: String) throws -> [String: Set<String>] {
        let script = try runTool(["completion", shell])
        #expect(script.status == 0)
        try Data(script.stdout.utf8).write(to: URL(fileURLWithPath: directory + "/runway.\(shell)"))
        let capture = directory + "/capture.\(shell)"
        let environment = [
            "PATH": Binaries.directory + ":/usr/bin:/bin", "RUNWAY_STATE_DIR": state, "HOME": directory, "ZDOTDIR": directory,
        ]
        var results: [String: Set<String>] = [:]
        if shell == "fish" {
            // fish's completion engine, as the Tab key runs it.
            let commands = lines.map { "complete -C '\($0)'; echo '-- end'" }.joined(separator: "; ")
            let result = try runTool(["--no-config", "-c", "source \(directory)/runway.fish; \(commands)"], binary: "/usr/bin/fish", environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let blocks = result.stdout.components(separatedBy: "-- end\n")
            for (line, block) in zip(lines, blocks) {
                results[line] = Set(block.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
            }
            return results
        }
        // bash and zsh: an interactive shell whose completion function also writes what it offers.
        let rc: String
        let arguments: [String]
        if shell == "bash" {
            rc = """
                source \(directory)/runway.bash
                _capture() { _runway "$@"; printf '%s\\n' "${COMPREPLY[@]}" >> \(capture); echo '-- end' >> \(capture); }
                complete -F _capture runway phone-daemon watch-agent phone-os
                PS1='READY> '
                """
            try Data(rc.utf8).write(to: URL(fileURLWithPath: directory + "/bashrc"))
            arguments = ["--rcfile", directory + "/bashrc", "-i"]
        } else {
            rc = """
                autoload -Uz compinit && compinit -u -D
                source \(directory)/runway.zsh
                compadd() {
                  local -a found
                  builtin compadd -O found "$@"
                  (( ${#found} )) && print -rl -- $found >> \(capture)
                  builtin compadd "$@"
                }
                _capture() { _runway "$@"; print -- '-- end' >> \(capture) }
                compdef _capture runway phone-daemon watch-agent phone-os
                PS1='READY> '
                """
            try Data(rc.utf8).write(to: URL(fileURLWithPath: directory + "/.zshrc"))
            arguments = ["-i"]
        }
        let terminal = try TerminalTool(arguments, binary: "/usr/bin/\(shell)", columns: 200, rows: 50, environment: environment)
        // (The screen's lines end trimmed: the prompt's trailing space is not there.)
        try terminal.waitForScreen("the prompt", timeout: 30) { $0.text.contains("READY>") }
        for line in lines {
            try? FileManager.default.removeItem(atPath: capture)
            terminal.type("\u{15}" + line + "\t")
            let deadline = Date().addingTimeInterval(30)
            var text = ""
            while Date() < deadline {
                text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
                if text.contains("-- end\n") { break }
                usleep(20_000)
            }
            #expect(text.contains("-- end\n"), "\(shell): no completion for '\(line)'")
            results[line] = Set(text.split(separator: "\n").map(String.init).filter { $0 != "-- end" })
        }
        terminal.type("\u{15}exit\n")
        _ = terminal.wait(timeout: 10)
        return results
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func valuesCompleteInTheRealShell(shell: String) throws {
        try withRunningPair(tag: "cmp-\(shell)") { pair in
            let state = pair.root + "/state"
            let ids = try pair.record(3)
            try pair.waitUntilDrained()
            let env = ["RUNWAY_STATE_DIR": state]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "demo"], environment: env).status == 0)
            let months = Set(
                (try JSONValue(parsing: Array(try runTool(["phone", "logbook", "--json", "--pair", "demo"], environment: env).stdout.utf8)).arrayValue ?? [])
                    .compactMap { $0["startedAt"]?.stringValue }.map { localMonth($0) })
            let directory = pair.root + "/sh"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: directory + "/sample.timeline", contents: Data()))
            try FileManager.default.createDirectory(atPath: directory + "/homes", withIntermediateDirectories: true)
            let lines = [
                "runway phone language set ", "runway watch run start --mode ", "runway phone lo", "runway phone logbook --first-weekday s",
                "runway up ", "runway phone status --pair d", "runway phone flight ", "runway phone logbook --toggle ",
                "runway completion ", "runway watch link ", "runway timeline show \(directory)/sam", "runway watch record --home \(directory)/ho",
                "runway watch run start --mode=h", "runway phone update respond ",
                "phone-daemon --save-path ", "watch-agent --gpws ", "phone-os --log-format ", "phone-daemon --log-l",
                "runway scenario run \(directory)/sam", "runway sc",
            ]
            let found = try complete(shell, lines, state: state, directory: directory)
            #expect(found[lines[0]] == ["ko", "en", "ja", "system"])
            #expect(found[lines[1]] == ["pace", "heart-rate"])
            #expect(found[lines[2]] == ["logbook", "lock"])
            #expect(found[lines[3]] == ["sun", "sat"])
            #expect(found[lines[4]] == ["demo"])
            #expect(found[lines[5]] == ["demo"])
            #expect(found[lines[6]] == Set(ids), "\(shell): \(found[lines[6]] ?? [])")
            #expect(found[lines[7]] == months)
            #expect(found[lines[8]] == ["bash", "zsh", "fish"])
            #expect(found[lines[9]] == ["down", "up", "fail-next", "set", "show", "schedule"])
            #expect(found[lines[10]]?.contains { $0.hasSuffix("sample.timeline") } == true, "\(shell): \(found[lines[10]] ?? [])")
            #expect(found[lines[11]]?.contains { $0.hasSuffix("homes") || $0.hasSuffix("homes/") } == true, "\(shell): \(found[lines[11]] ?? [])")
            // bash replaces only what follows the `=` (it splits words there); zsh and fish the whole word.
            #expect(found[lines[12]] == [shell == "bash" ? "heart-rate" : "--mode=heart-rate"])
            #expect(found[lines[13]] == ["update", "later"])
            // The daemons complete too, from their own option lists: the values their parsing accepts.
            #expect(found[lines[14]] == ["immediate", "ui-drain"])
            #expect(found[lines[15]] == ["fixed", "legacy"])
            #expect(found[lines[16]] == ["logfmt", "json"])
            #expect(found[lines[17]] == ["--log-level"])
            // A scenario is a file; `scenario` is a command of its own.
            #expect(found[lines[18]]?.contains { $0.hasSuffix("sample.timeline") } == true, "\(shell): \(found[lines[18]] ?? [])")
            #expect(found[lines[19]] == ["scenario"], "\(shell): \(found[lines[19]] ?? [])")
            try pair.expectClean(stored: 3)
        }
    }

    /// `2026-11-29T07:00:00Z` → its month in local time, as the Logbook groups it.
    func localMonth(_ iso: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = formatter.date(from: iso) ?? ISO8601DateFormatter().date(from: iso) ?? Date()
        let components = Calendar.current.dateComponents(in: TimeZone.current, from: date)
        return String(format: "%04d-%02d", components.year ?? 0, components.month ?? 0)
    }

    /// What only the devices know: the transfers that can still be cancelled, and nothing at all from a
    /// device that is not running (the shell is not kept waiting).
    @Test func transferIDsComeFromTheRunningWatchAndAStoppedDeviceOffersNothing() throws {
        try withRunningPair(tag: "cmp-ids", phone: nil) { pair in
            let state = pair.root + "/state"
            let env = ["RUNWAY_STATE_DIR": state]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: env).status == 0)
            try pair.record(2)
            let queued = try runTool(["watch", "transfers", "--json", "--home", pair.watchHome])
            let transferIDs = Set(
                (try JSONValue(parsing: Array(queued.stdout.utf8))["outstanding"]?.arrayValue ?? []).compactMap { $0["transferId"]?.intValue }.map(
                    String.init))
            #expect(transferIDs.count == 2)
            let answer = try runTool(["__complete", "watch", "cancel", ""], environment: env)
            #expect(answer.status == 0)
            let lines = answer.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "words")
            #expect(Set(lines.dropFirst().map { String($0.split(separator: "\t").first ?? "") }) == transferIDs)
            // The phone is not running: no flight ids, no months, and no error either.
            for words in [["phone", "flight", ""], ["phone", "logbook", "--toggle", ""]] {
                let none = try runTool(["__complete"] + words, environment: env)
                #expect(none.status == 0 && none.stdout == "words\n" && none.stderr.isEmpty, "\(words): \(none.stdout)")
            }
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    @Test func theScriptsAreNamedAndAnUnknownShellIsOneLine() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try runTool(["completion", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("runway completion \(shell)"))
        }
        let unknown = try runTool(["completion", "tcsh"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("runway completion: say which shell: bash, zsh or fish (not 'tcsh')"))
    }
}
