import Foundation
import Glibc
import PairTesting
import Testing

/// Whoever reads a device's stores while it runs loses nothing (issue 39): the `sqlite3` shell, and the
/// project's own readers (`runway dump`, the invariant checker), read every store of both devices — the
/// WatchConnectivity service's, the OS's, the app's — on the daemons' first start and again later; what
/// is saved after each read survives a SIGKILL of both daemons.
@Suite(.serialized) struct StoreReaderTests {
    /// Reads `path` in a process of its own and closes it, as a person at a shell would.
    static func readWithTheShell(_ path: String) throws {
        let result = try runUntilExit("/usr/bin/sqlite3", [path, "SELECT count(*) FROM sqlite_master"])
        #expect(result.status == 0, "sqlite3 \(path): \(result.stderr)")
    }

    @Test func readingEveryStoreMidRunLosesNothing() throws {
        try withRunningPair(tag: "readers") { pair in
            #expect(pair.storePaths.count == 6, "\(pair.storePaths)")
            for round in 1...3 {
                try pair.record(20)
                try pair.waitUntilDrained()
                for path in pair.storePaths { try Self.readWithTheShell(path) }
                // The project's own readers too: the dump and the checker's look at every store.
                let dump = try runTool(["dump", "--home", pair.phoneHome])
                #expect(dump.status == 0, "\(dump.stderr)")
                #expect(try pair.check().isClean, "round \(round)")
                for path in pair.storePaths {
                    #expect(access(path + "-wal", F_OK) == 0, "a reader deleted the running owner's log: \(path)")
                }
            }
            try pair.record(20)
            try pair.waitUntilDrained()
            pair.killPhone()
            pair.killWatch()
            _ = pair.phone?.waitForExit(timeout: 10)
            _ = pair.watch?.waitForExit(timeout: 10)
            try pair.startWatch()
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 80)
        }
    }
}
