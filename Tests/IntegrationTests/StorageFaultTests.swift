import Posix
import Control
import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Storage
import Testing

/// Storage faults through the real binaries: a full disk loses nothing and delivery resumes when space
/// returns; a damaged store or one from a newer version is refused and left untouched.
@Suite struct StorageFaultTests {
    func pageCount(_ path: String) throws -> Int {
        let database = try Database(path: path)
        defer { database.close() }
        return Int(try database.scalarInt("PRAGMA page_count"))
    }

    func storeLimit(_ home: String, _ role: DeviceRole, pages: Int) throws {
        let client = try ControlClient(home: DeviceHome(path: home, role: role))
        _ = try client.call(ControlRequest(command: "store-limit", arguments: ["pages": .integer(Int64(pages))]))
    }

    @Test func aFullDiskOnThePhoneDelaysDeliveryButLosesNothing() throws {
        try withPair(tag: "full") { pair in
            let pages = try pageCount(pair.phoneHome + "/store.sqlite")
            try pair.startWatch()
            try pair.record(1000)
            // Room for a few hundred flights only: the cap is in pages of each store, and the app's store
            // has 16 KiB pages (the service's 4 KiB).
            try pair.startPhone(extraArguments: ["--max-store-pages", String(pages + 25), "--enable-test-commands"])
            try pair.waitUntil("the phone reports the full store", timeout: 60) {
                let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
                return log.contains("event=receive.commit-failed") && log.contains("insufficientSpace")
            }
            let storedWhileFull = try pair.storedCount()
            #expect(storedWhileFull < 1000)
            #expect(try pair.outstandingTransfers() == 1000 - storedWhileFull)
            // The daemon keeps serving while full.
            #expect(try pair.status("phone")["activationState"] == .string("activated"))
            // Space returns: delivery resumes by itself.
            try storeLimit(pair.phoneHome, .phone, pages: 0)
            try pair.expectDrainedAndClean(stored: 1000)
            let watchLog = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
            #expect(watchLog.contains("event=link.peer-error code=7015 name=insufficientSpace"))
        }
    }

    @Test func aFullDiskOnTheWatchFailsTheRecordingAndKeepsWhatWasQueued() throws {
        try withPair(tag: "wfull") { pair in
            let pages = try pageCount(pair.watchHome + "/store.sqlite")
            pair.watchArguments = ["--max-store-pages", String(pages + 60)]
            try pair.startWatch()
            try pair.record(20)
            let failed = try runTool(["watch", "record", "--home", pair.watchHome, "--count", "2000"])
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("full"))
            #expect(failed.stderr.split(separator: "\n").count == 1)
            #expect(try pair.outstandingTransfers() == 20)  // the failed recording left nothing half-queued
            try pair.startPhone()
            try pair.expectDrainedAndClean()
        }
    }

    @Test func aDamagedStoreIsRefusedAndLeftUntouched() throws {
        try withRunningPair(tag: "corrupt") { pair in
            try pair.record(300)
            try pair.waitUntilDrained()
            #expect(pair.phone!.stop() == 0)
            let path = pair.phoneHome + "/store.sqlite"
            let before = try scribbleOverTheMiddle(of: path)
            let refused = try runTool(["--home", pair.phoneHome], binary: "phone-daemon")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("is damaged"))
            #expect(refused.stderr.contains("left untouched"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            let wal = FileManager.default.contents(atPath: path + "-wal") ?? Data()
            #expect(wal.isEmpty)
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        try withPair(tag: "notdb") { pair in
            let path = pair.phoneHome + "/store.sqlite"
            try FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
            let garbage = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try garbage.write(to: URL(fileURLWithPath: path))
            let refused = try runTool(["--home", pair.phoneHome], binary: "phone-daemon")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("is damaged"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        try withPair(tag: "newer") { pair in
            let path = pair.phoneHome + "/store.sqlite"
            do {
                let database = try Database(path: path)
                try database.execute("INSERT INTO schema_migrations (id) VALUES ('app.99')")
                database.close()
            }
            let refused = try runTool(["--home", pair.phoneHome], binary: "phone-daemon")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("newer version"))
            #expect(refused.stderr.contains("app.99"))
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
    }
}
