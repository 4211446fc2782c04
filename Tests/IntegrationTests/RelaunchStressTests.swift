import Foundation
import Glibc
import PairTesting
import Testing

/// A daemon or an OS relaunched the moment its predecessor was SIGKILLed mid-transfer — before the
/// killed one is gone, its leader maybe a zombie while a thread finishes its I/O and still holds the
/// home's lock — becomes ready (issue 39: it was refused, "already served by process N"), with CPU and
/// disk hogs running. Every relaunch becomes ready or the test says which and why; the checker closes it.
/// `RUNWAY_RELAUNCH_ROUNDS` sets the rounds (default 15: 60 relaunches; hundreds with a larger number).
@Suite(.serialized) struct RelaunchStressTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["RUNWAY_RELAUNCH_ROUNDS"] ?? "") ?? 15

    /// Two busy loops and a writer that fsyncs 32 MiB over and over, for the length of `body`.
    func withHogs<T>(_ root: String, _ body: () throws -> T) throws -> T {
        var hogs = try (0..<2).map { _ in try ChildProcess("/bin/sh", ["-c", "while :; do :; done"]) }
        hogs.append(try ChildProcess("/bin/sh", ["-c", "while :; do dd if=/dev/zero of='\(root)/hog' bs=1M count=32 conv=fsync status=none; done"]))
        defer { for hog in hogs { hog.kill(SIGKILL) } }
        return try body()
    }

    /// `rounds` times with the hogs running: 10 runs recorded, then `killAndRelaunch`.
    func relaunchUnderLoad(_ pair: SimulatedPair, _ killAndRelaunch: () throws -> Void) throws {
        try withHogs(pair.root) {
            for _ in 0..<Self.rounds {
                try pair.record(10)
                try killAndRelaunch()
            }
        }
    }

    @Test func daemonsRelaunchedTheMomentTheyAreKilledBecomeReady() throws {
        try withRunningPair(tag: "relaunch") { pair in
            try relaunchUnderLoad(pair) {
                pair.phone?.signal(SIGKILL)
                try pair.startPhone()
                pair.watch?.signal(SIGKILL)
                try pair.startWatch()
            }
            try pair.expectDrainedAndClean(stored: 10 * Self.rounds)
        }
    }

    @Test func osesRelaunchedTheMomentTheyAreKilledBecomeReady() throws {
        try withPair(tag: "relaunch-os") { pair in
            try pair.startPhoneOS()
            try pair.startWatchOS()
            try relaunchUnderLoad(pair) {
                pair.phoneOS?.signal(SIGKILL)
                try pair.startPhoneOS()
                pair.watchOS?.signal(SIGKILL)
                try pair.startWatchOS()
            }
            try pair.record(1)  // the watch app runs again (watch-os opens it to record)
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.expectDrainedAndClean(stored: 10 * Self.rounds + 1)
        }
    }
}
