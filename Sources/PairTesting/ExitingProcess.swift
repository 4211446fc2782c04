import Foundation

/// Runs a daemon that is expected to exit by itself (refusing to start), with its output in files;
/// kills it and fails after `timeout` seconds if it does not, so a daemon that starts after all cannot
/// hang the test. `binary` is one of ours, or an absolute path to a system tool.
package func runUntilExit(_ binary: String, _ arguments: [String], timeout: Double = 30) throws -> CommandResult {
    let scratch = makeScratchDirectory("exit")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let outPath = scratch + "/out", errPath = scratch + "/err"
    let process = try ChildProcess(binary, arguments, stdout: .file(outPath), stderr: .file(errPath))
    guard process.waitForExit(timeout: timeout) else {
        process.kill(SIGKILL)
        throw HarnessError("\(binary) \(arguments.joined(separator: " ")) was still running after \(timeout) s")
    }
    return CommandResult(
        status: process.status,
        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
        signal: process.terminationSignal)
}
