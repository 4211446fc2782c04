import Foundation
import Glibc

/// Runs a daemon that is expected to exit by itself (refusing to start), with its output in files;
/// kills it and fails after `timeout` seconds if it does not, so a daemon that starts after all cannot
/// hang the test. `binary` is one of ours, or an absolute path to a system tool.
public func runUntilExit(_ binary: String, _ arguments: [String], timeout: Double = 30) throws -> CommandResult {
    let scratch = makeScratchDirectory("exit")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let outPath = scratch + "/out", errPath = scratch + "/err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary.hasPrefix("/") ? binary : Binaries.path(binary))
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw HarnessError("\(binary) \(arguments.joined(separator: " ")) was still running after \(timeout) s")
    }
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}
