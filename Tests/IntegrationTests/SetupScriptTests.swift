import Foundation
import Glibc
import PairTesting
import Testing

/// `scripts/setup` (run by `scripts/test` and every other script, each saying what it is for) with packages
/// missing, on a PATH of stand-ins: `apt-get` only writes down how it was called. It asks on a terminal,
/// installs without asking in CI or with --yes, and with neither says what is missing and exits 1; it asks
/// only for what the caller uses (the demo runs without zsh and fish).
@Suite struct SetupScriptTests {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/setup").path

    /// A directory of stand-ins: swift, pkg-config (SQLite's and libcrypto's files present), id (root: no
    /// sudo), bash, apt-get (records its arguments). No sqlite3, jq, git, systemd-socket-activate, zsh, fish, groff, man, xmllint.
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

    func run(_ arguments: [String] = ["--for", "test"], ci: String = "", terminalInput: String? = nil) throws -> (CommandResult, String) {
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
        #expect(result.stderr.contains("missing system packages (for test): jq git systemd zsh fish groff-base man-db libxml2-utils"))
        #expect(result.stderr.contains("apt-get install jq git systemd zsh fish groff-base man-db libxml2-utils"))
        #expect(result.stderr.contains("--yes"))
        // No question asked of nobody: it says why it stops instead.
        #expect(!result.stderr.contains("[y/N]"))
        #expect(result.stderr.contains("not a terminal"))
        #expect(calls.isEmpty)
    }

    @Test func inCIOrWithYesItInstallsWithoutAsking() throws {
        for (arguments, ci) in [(["--for", "test"], "true"), (["--yes"], "")] {
            let (result, calls) = try run(arguments, ci: ci)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("[y/N]"))
            #expect(calls.split(separator: "\n") == ["update -qq", "install -y -qq jq git systemd zsh fish groff-base man-db libxml2-utils"], "\(calls)")
        }
    }

    @Test func onATerminalItAsksFirst() throws {
        let (declined, none) = try run(terminalInput: "n\n")
        #expect(declined.status == 1)
        #expect(declined.stderr.contains("install them now (apt-get install jq git systemd zsh fish groff-base man-db libxml2-utils)? [y/N]"))
        #expect(none.isEmpty)
        let (accepted, calls) = try run(terminalInput: "y\n")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(calls.contains("install -y -qq jq git systemd zsh fish groff-base man-db libxml2-utils"))
    }

    @Test func nothingMissingIsSilent() throws {
        let (bin, record) = try standIns()
        defer { try? FileManager.default.removeItem(atPath: bin) }
        for name in ["sqlite3", "jq", "git", "systemd-socket-activate", "zsh", "fish", "groff", "man", "xmllint"] {
            try "#!/bin/bash\nexit 0\n".write(toFile: bin + "/" + name, atomically: true, encoding: .utf8)
            chmod(bin + "/" + name, 0o755)
        }
        let result = try runTool([script], binary: "/bin/bash", environment: ["PATH": bin, "CI": ""])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: record))
    }

    /// The demo and the chaos run use no shell but bash, no jq, git or systemd: with all of those missing
    /// and no terminal, setup for them is silent and succeeds; the bench asks for sqlite3 alone.
    @Test func eachCallerIsAskedOnlyForWhatItUses() throws {
        for purpose in ["demo", "chaos", "build"] {
            let (result, calls) = try run(["--for", purpose])
            #expect(result.status == 0, "\(purpose): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(purpose): \(result.stderr)")
            #expect(calls.isEmpty)
        }
        let (bench, _) = try run(["--for", "bench"])
        #expect(bench.status == 1)
        #expect(bench.stderr.contains("missing system packages (for bench): sqlite3\n"), "\(bench.stderr)")
        let (api, _) = try run(["--for", "api"])
        #expect(api.stderr.contains("missing system packages (for api): jq\n"), "\(api.stderr)")
        let (bad, _) = try run(["--for", "everything"])
        #expect(bad.status == 2)
        #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }
}
