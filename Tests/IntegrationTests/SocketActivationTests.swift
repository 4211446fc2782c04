import Foundation
import Glibc
import PairTesting
import Testing

/// `phone-daemon` under systemd's own supervisor, `systemd-socket-activate` (Debian package `systemd`):
/// it binds the phone's sockets, nothing runs the phone, and the watch's connection launches it.
@Suite(.serialized) struct SocketActivationTests {
    static let supervisor = "/usr/bin/systemd-socket-activate"

    @Test func theWatchConnectingLaunchesThePhoneAndTheBacklogIsSaved() throws {
        try withRunningPair(tag: "sd", phone: nil) { pair in
            try pair.record(40)
            // Started through a shell that leaves it behind (it is not the test's own child: Foundation's
            // child reaping waits on a process that systemd-socket-activate exec'd into another program).
            let command =
                "\(Self.supervisor) -l \(pair.phoneHome)/link.sock -l \(pair.phoneHome)/control.sock --fdname=link:control \(Binaries.path("phone-daemon")) --home \(pair.phoneHome) >/dev/null 2>>\(pair.phoneLog) </dev/null & echo $!"
            let started = try runUntilExit("/bin/sh", ["-c", command])
            let supervisorPID = Int32(started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(supervisorPID > 0)
            defer { kill(supervisorPID, SIGKILL) }
            try pair.waitUntilDrained()
            let status = try pair.status("phone")
            #expect(status["pid"]?.intValue == Int(supervisorPID), "systemd-socket-activate exec'd the phone itself")
            try pair.expectClean(stored: 40)
            kill(supervisorPID, SIGTERM)
            try pair.waitUntil("the phone has stopped") { kill(supervisorPID, 0) != 0 }
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=startup.socket-activated link=true control=true"))
            #expect(log.contains("event=daemon.stopped home=\(pair.phoneHome) clean=true"))
            // The supervisor's socket files are the supervisor's: the phone did not remove them.
            #expect(FileManager.default.fileExists(atPath: pair.phoneHome + "/link.sock"))
        }
    }

    /// Descriptors that are not what the protocol promises: one line, exit 2, nothing stored or bound.
    @Test func wrongOrMissingDescriptorsAreRefused() throws {
        try withPair(tag: "sd-bad") { pair in
            let daemon = Binaries.path("phone-daemon"), home = pair.phoneHome
            let cases: [(String, String)] = [
                ("LISTEN_FDS=1 LISTEN_PID=1 exec \(daemon) --home \(home)", "names another process"),
                ("LISTEN_PID=$$ LISTEN_FDS=0 exec \(daemon) --home \(home)", "passed no sockets"),
                ("LISTEN_PID=$$ exec \(daemon) --home \(home)", "passed no sockets"),
                ("LISTEN_PID=$$ LISTEN_FDS=1 exec \(daemon) --home \(home) 3</dev/null", "not a socket"),
                ("LISTEN_PID=$$ LISTEN_FDS=1 exec \(daemon) --home \(home) 3>&-", "not open"),
            ]
            for (script, message) in cases {
                let result = try runUntilExit("/bin/sh", ["-c", "export LISTEN_PID LISTEN_FDS; " + script])
                #expect(result.status == 2, "\(script): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(script): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            for name in ["link.sock", "control.sock"] {
                #expect(!FileManager.default.fileExists(atPath: home + "/" + name))
            }
        }
    }
}
