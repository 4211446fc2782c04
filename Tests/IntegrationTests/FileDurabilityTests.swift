import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The file lane's promise under SIGKILL: a 200 MB file from the watch to the phone survives five kills of
/// the receiver and five of the sender — each resume from the bytes the phone had made durable, said in
/// both logs — and arrives once, byte-identical (the checker hashes the kept file again). Memory stays
/// bounded: the daemons' peak resident size is measured and printed, never asserted.
@Suite struct FileDurabilityTests {
    static let size = 200 * 1024 * 1024

    /// The phone's bytes of the file durable now (0 when none is arriving or the phone does not answer),
    /// asked on its control socket directly: polled every few milliseconds, since the file moves fast.
    func durable(_ pair: SimulatedPair) -> Int {
        guard let client = try? ControlClient(home: DeviceHome(path: pair.phoneHome, role: .phone), timeoutMilliseconds: 5000),
            let status = try? client.call(ControlCommands.Status().request)
        else { return 0 }
        return status["fileReceiving"]?["durableBytes"]?.intValue ?? 0
    }

    /// Waits until the phone has `bytes` more of the file durable than `from` (a deadline, not a measure).
    func waitForProgress(_ pair: SimulatedPair, from: Int, bytes: Int) throws {
        let deadline = Date().addingTimeInterval(120)
        while durable(pair) < from + bytes {
            guard Date() < deadline else { throw HarnessError("the phone made no more of the file durable in 120 s") }
            usleep(2000)
        }
    }

    /// Peak resident set (`VmHWM`) of a process, in KiB.
    static func peakKiB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }

    @Test func a200MBFileSurvivesFiveKillsOfEachSideAndArrivesOnceByteIdentical() throws {
        try withRunningPair(tag: "file200") { pair in
            try pair.waitUntil("the link is up") { try pair.status("phone")["linked"] == .bool(true) }
            let path = try FileTransferIntegrationTests.randomFile(pair, "flight-video.bin", size: Self.size)
            let started = Date()
            try pair.transferFile(from: "watch", path)
            var peaks: [String: Int] = [:]
            var resumedFrom: [Int] = []
            for kill in 0..<10 {
                // Let some more of it become durable on the phone than at the last kill — so the transfer has
                // resumed since (a restarted phone answers 0 until it has) — then kill one side mid-file.
                let before = max(durable(pair), resumedFrom.last ?? 0)
                try waitForProgress(pair, from: before, bytes: 2 << 20)
                resumedFrom.append(durable(pair))
                if kill % 2 == 0 {
                    if let pid = pair.phone?.pid { peaks["phone", default: 0] = max(peaks["phone"] ?? 0, Self.peakKiB(pid)) }
                    pair.killPhone()
                    _ = pair.phone?.waitForExit(timeout: 10)
                    try pair.startPhone()
                } else {
                    if let pid = pair.watch?.pid { peaks["watch", default: 0] = max(peaks["watch"] ?? 0, Self.peakKiB(pid)) }
                    pair.killWatch()
                    _ = pair.watch?.waitForExit(timeout: 10)
                    try pair.startWatch()
                }
            }
            try pair.waitUntil("the file is delivered", timeout: 300) { try pair.status("watch")["outstandingFileTransfers"] == .integer(0) }
            let seconds = Date().timeIntervalSince(started)
            if let pid = pair.phone?.pid { peaks["phone"] = max(peaks["phone"] ?? 0, Self.peakKiB(pid)) }
            if let pid = pair.watch?.pid { peaks["watch"] = max(peaks["watch"] ?? 0, Self.peakKiB(pid)) }

            // Each restart resumed, not restarted: both logs say from which byte.
            let phoneLog = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            let watchLog = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
            let receiverResumes = phoneLog.split(separator: "\n").filter { $0.contains("event=file.resume") && $0.contains("side=receiver") }
            let senderResumes = watchLog.split(separator: "\n").filter { $0.contains("event=file.resume") && $0.contains("side=sender") }
            #expect(resumedFrom.last ?? Self.size < Self.size, "every kill fell mid-file")
            #expect(receiverResumes.count >= 10, "the phone resumed after each of the 10 kills: \(receiverResumes.count)")
            #expect(senderResumes.count >= 10, "the watch resumed after each of the 10 kills: \(senderResumes.count)")
            #expect(phoneLog.components(separatedBy: "event=file.receiving").count - 1 == 1, "started from byte 0 once only")
            let report = try pair.expectClean()
            #expect(report.files.sent == 1 && report.files.received == 1, "\(report.summary)")
            print(
                "file200: \(Self.size) bytes in \(String(format: "%.1f", seconds)) s with 10 SIGKILLs (5 phone, 5 watch); "
                    + "resumed from \(resumedFrom.map(String.init).joined(separator: ", ")); "
                    + "peak RSS phone \(peaks["phone"] ?? -1) KiB, watch \(peaks["watch"] ?? -1) KiB")
        }
    }
}
