import Connectivity
import Foundation
import Glibc
import PairTesting
import Testing

/// Who may talk to a daemon, and what a daemon may touch in its home, through the real binaries.
@Suite(.serialized) struct AccessControlTests {
    /// Another user is refused by `SO_PEERCRED` on every socket, even when the file modes would let it
    /// in. Needs root: a test cannot otherwise be a peer of another uid (`runway-probe --uid`).
    @Test(.enabled(if: getuid() == 0, "needs root to connect as another user"))
    func aPeerOfAnotherUserIsRefusedAndLoggedOnEverySocket() throws {
        try withRunningPair(tag: "uid", phoneFirst: true) { pair in
            try pair.record(5)
            try pair.waitUntilDrained()

            // Open the way that the homes' 0700 and the sockets' 0600 normally bar, so only the uid check is left.
            for directory in [pair.root, pair.phoneHome, pair.watchHome] { chmod(directory, 0o711) }
            defer { for directory in [pair.root, pair.phoneHome, pair.watchHome] { chmod(directory, 0o700) } }
            let sockets: [(socket: String, log: String, event: String, input: [UInt8])] = [
                (pair.phoneHome + "/link.sock", pair.phoneLog, "link.refused-uid", Inputs.unpairedHello()),
                (pair.phoneHome + "/control.sock", pair.phoneLog, "control.refused-uid", Inputs.statusRequest()),
                (pair.watchHome + "/control.sock", pair.watchLog, "control.refused-uid", Inputs.statusRequest()),
            ]
            for (socket, log, event, input) in sockets {
                chmod(socket, 0o666)
                defer { chmod(socket, 0o600) }
                let stranger = try runTool(
                    ["--socket", socket, "--uid", "65534", "--send-hex", hexString(input), "--wait-ms", "5000"],
                    binary: "runway-probe")
                #expect(stranger.stdout == "closed=yes received=\n", "\(socket): \(stranger.stdout)\(stranger.stderr)")
                try waitForLogLine(pair, log, "event=\(event) peerUID=65534")
                // The same bytes from our own uid are answered: the refusal was about who, not what.
                let own = try runTool(["--socket", socket, "--send-hex", hexString(input), "--wait-ms", "3000"], binary: "runway-probe")
                #expect(own.stdout.hasPrefix("closed="))
                #expect(!own.stdout.hasSuffix("received=\n"), "\(socket): \(own.stdout)")
            }

            try pair.record(5)
            try pair.expectDrainedAndClean(stored: 10)
        }
    }

    /// A SIGKILLed daemon leaves its sockets behind; the next daemon on the home (the lock's holder)
    /// removes them and starts.
    @Test func theSocketsOfAKilledDaemonAreRemovedByTheNextOne() throws {
        try withRunningPair(tag: "stale", phoneFirst: true) { pair in
            try pair.record(3)
            try pair.waitUntilDrained()
            pair.killPhone()
            pair.killWatch()
            let sockets = [pair.phoneHome + "/link.sock", pair.phoneHome + "/control.sock", pair.watchHome + "/control.sock"]
            for socket in sockets {
                #expect(fileType(socket) == S_IFSOCK, "\(socket) should have been left behind")
            }
            try pair.startPhone()
            try pair.startWatch()
            for socket in sockets {
                try waitForLogLine(
                    pair, socket.hasPrefix(pair.phoneHome) ? pair.phoneLog : pair.watchLog,
                    "event=daemon.stale-socket-removed socket=\(socket)")
            }
            try pair.record(3)
            try pair.waitUntilDrained()
            try pair.expectClean()
        }
    }

    /// While a daemon runs, a second one on its home neither starts nor touches the running one's sockets.
    @Test func aSecondDaemonLeavesTheRunningOnesSocketsAlone() throws {
        try withRunningPair(tag: "second", phoneFirst: true) { pair in
            let second = try runUntilExit("phone-daemon", ["--home", pair.phoneHome])
            #expect(second.status == 1)
            #expect(second.stderr.contains("process \(pair.phone!.pid)"))
            #expect(fileType(pair.phoneHome + "/link.sock") == S_IFSOCK)
            try pair.record(3)
            try pair.waitUntilDrained()
            try pair.expectClean()
        }
    }

    /// Something that is not a socket where a socket goes is not the daemon's to delete: it refuses to
    /// start, says why in one line, and leaves the file as it was.
    @Test(arguments: ["link.sock", "control.sock"])
    func aFileWhereASocketGoesMakesTheDaemonRefuseAndIsLeftAlone(name: String) throws {
        try withPair(tag: "notsock") { pair in
            let path = pair.phoneHome + "/" + name
            let content = Data("someone's notes, not a socket\n".utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: content))
            let result = try runUntilExit("phone-daemon", ["--home", pair.phoneHome])
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(path) exists and is a regular file, not a socket: refusing to remove it"))
            #expect(FileManager.default.contents(atPath: path) == content)
        }
    }

    /// A home whose socket paths would not fit `sun_path` is invalid input: one line naming the limit,
    /// exit status 2, and no directory created.
    @Test(arguments: ["phone-daemon", "watch-agent"])
    func aHomeTooLongForItsSocketPathsIsRefusedNamingTheLimit(binary: String) throws {
        let root = makeScratchDirectory("long")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/" + String(repeating: "h", count: 99 - root.count)
        #expect(home.utf8.count == 100)
        let result = try runUntilExit(binary, ["--home", home])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("longer than the 107 bytes sun_path allows"))
        #expect(result.stderr.contains(home + "/control.sock"))
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    func fileType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }
}
