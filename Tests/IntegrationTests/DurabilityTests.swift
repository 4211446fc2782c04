import Foundation
import Glibc
import PairTesting
import Testing

/// The core promise, through the real binaries: a flight recorded on the watch is stored exactly once
/// on the phone, however often the phone is SIGKILLed in the middle of the transfer.
@Suite(.serialized) struct DurabilityTests {
    @Test func noFlightIsLostOrDuplicatedWhenThePhoneIsKilledMidTransfer() throws {
        try withPair(tag: "kill") { pair in
            // A slow link, so that every kill lands while transfers are on the wire.
            pair.watchArguments = ["--link-rate", "250"]
            try pair.startWatch()
            try pair.record(500)
            #expect(try pair.outstandingTransfers() == 500)

            var kills = 0
            var stored = 0
            var running = false
            var generator = SystemRandomNumberGenerator()
            while kills < 4 {
                try pair.startPhone()
                running = true
                try pair.waitUntil("the phone stores more flights") { try pair.storedCount() > stored }
                usleep(UInt32.random(in: 0...150_000, using: &generator))
                // Drained before this kill: the phone that did it is still running (starting another
                // would find the home locked).
                guard try pair.outstandingTransfers() > 0 else { break }
                pair.killPhone()
                running = false
                kills += 1
                stored = try pair.storedCountOffline()
            }
            #expect(kills >= 3, "the transfer finished before the phone could be killed three times")

            if !running { try pair.startPhone() }
            let report = try pair.expectDrainedAndClean(stored: 500)
            #expect(report.summary == "500 recorded, 500 stored, 0 lost, 0 duplicated, order kept")
        }
    }

    /// The same scenario against a phone that acknowledges before committing, killed between the two:
    /// the check must report the loss. This is what shows the test above can fail.
    @Test func theCheckCatchesAPhoneThatAcknowledgesBeforeCommitting() throws {
        try withRunningPair(tag: "unsafe", phone: nil) { pair in
            try pair.record(500)
            try pair.startPhone(
                environment: ["RUNWAY_CRASH_AT": "receive.before-commit"],
                extraArguments: ["--unsafe-ack-before-commit"])
            #expect(pair.phone!.waitForExit(timeout: 60), "the crash point was never reached")
            try pair.startPhone()
            try pair.waitUntilDrained()
            let report = try pair.check()
            #expect(!report.isClean)
            #expect(!report.lost.isEmpty)
            #expect(report.stored + report.lost.count == 500)
            #expect(report.duplicated.isEmpty)
        }
    }

    /// The same crash point with the real phone: the batch that was read but not committed is resent.
    @Test func aCrashBeforeTheCommitLosesNothing() throws {
        try withRunningPair(tag: "safe", phone: nil) { pair in
            try pair.record(500)
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": "receive.before-commit"])
            #expect(pair.phone!.waitForExit(timeout: 60))
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 500)
        }
    }
}
