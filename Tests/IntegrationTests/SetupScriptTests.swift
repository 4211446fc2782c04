import Foundation
import Glibc
import PairTesting
import Testing

/// `scripts/setup` (run by `scripts/test`) with two packages missing, on a PATH of stand-ins: `apt-get`
/// only writes down how it was called. It asks on a terminal, installs without asking in CI or with
/// --yes, and with neither says what is missing and exits 1.
@Suite struct SetupScriptTests {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/setup").path

    /// A directory of stand-ins: swift, pkg-config (SQLite's files present), id (root: no sudo), bash,
    /// apt-get (records its arguments). No sqlite3, no systemd-socket-activate, no zsh, no fish.
    func standIns() throws -> (bin: String, record: String) {
        let bin = makeScratchDirectory("setup")
        let record = bin + "/apt-get.calls"
        let scripts = [
            "swift": "exit 0", "pkg-config": "exit 0", "id": "echo 0", "bash": "exit 0",
            "apt-get": "echo \"$*\" >> '\(record)'",
        ]
        for (name, body) in scripts {
            let path = bin + "/" + name
            // Written through a close-on-exec descriptor: a child another test forks meanwhile must not
            // inherit it open for writing, or running the stand-in fails with ETXTBSY ("text file busy")
            // and setup takes pkg-config for missing (seen under load: libsqlite3-dev "missing").
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard fd >= 0 else { throw HarnessError("cannot write \(path): \(errno)") }
            let bytes = Array("#!/bin/bash\n\(body)\n".utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        return (bin, record)
    }

    func run(_ arguments: [String] = [], ci: String = "", terminalInput: String? = nil) throws -> (CommandResult, String) {
        let (bin, record) = try standIns()
        defer { try? FileManager.default.removeItem(atPath: bin) }
        let result = try runTool(
            [script] + arguments, binary: "/bin/bash",
            environment: ["PATH": bin, "CI": ci], terminalInput: terminalInput)
        return (result, (try? String(contentsOfFile: record, encoding: .utf8)) ?? "")
    }

    @Test func withNoTerminalAndNoCIItSaysWhatIsMissingAndInstallsNothing() throws {
        let (result, calls) = try run()
        #expect(result.status == 1)
        #expect(result.stderr.contains("missing system packages: sqlite3 systemd zsh fish"))
        #expect(result.stderr.contains("apt-get install sqlite3 systemd zsh fish"))
        #expect(result.stderr.contains("--yes"))
        // No question asked of nobody: it says why it stops instead.
        #expect(!result.stderr.contains("[y/N]"))
        #expect(result.stderr.contains("not a terminal"))
        #expect(calls.isEmpty)
    }

    @Test func inCIOrWithYesItInstallsWithoutAsking() throws {
        for (arguments, ci) in [([String](), "true"), (["--yes"], "")] {
            let (result, calls) = try run(arguments, ci: ci)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("[y/N]"))
            #expect(calls.split(separator: "\n") == ["update -qq", "install -y -qq sqlite3 systemd zsh fish"], "\(calls)")
        }
    }

    @Test func onATerminalItAsksFirst() throws {
        let (declined, none) = try run(terminalInput: "n\n")
        #expect(declined.status == 1)
        #expect(declined.stderr.contains("install them now (apt-get install sqlite3 systemd zsh fish)? [y/N]"))
        #expect(none.isEmpty)
        let (accepted, calls) = try run(terminalInput: "y\n")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(calls.contains("install -y -qq sqlite3 systemd zsh fish"))
    }

    @Test func nothingMissingIsSilent() throws {
        let (bin, record) = try standIns()
        defer { try? FileManager.default.removeItem(atPath: bin) }
        for name in ["sqlite3", "systemd-socket-activate", "zsh", "fish"] {
            try "#!/bin/bash\nexit 0\n".write(toFile: bin + "/" + name, atomically: true, encoding: .utf8)
            chmod(bin + "/" + name, 0o755)
        }
        let result = try runTool([script], binary: "/bin/bash", environment: ["PATH": bin, "CI": ""])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: record))
    }
}
