import Foundation

/// Which of a process's output streams a test reads (into one pipe); the others go nowhere.
struct CapturedStreams: OptionSet {
    let rawValue: Int
    static let output = CapturedStreams(rawValue: 1)
    static let error = CapturedStreams(rawValue: 2)
}

extension Process {
    /// `/usr/bin/env ARGUMENTS…`, with the toolchain's directory (`/opt/swift/usr/bin`) on the PATH.
    static func toolchain(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "") + ":/opt/swift/usr/bin"
        process.environment = environment
        return process
    }

    /// Runs the process to its end: its exit status and what it wrote on the `captured` streams.
    func runToEnd(capturing captured: CapturedStreams = []) throws -> (status: Int32, data: Data) {
        let pipe = Pipe()
        standardOutput = captured.contains(.output) ? pipe : FileHandle.nullDevice
        standardError = captured.contains(.error) ? pipe : FileHandle.nullDevice
        try run()
        let data = captured.isEmpty ? Data() : pipe.fileHandleForReading.readDataToEndOfFile()
        waitUntilExit()
        return (terminationStatus, data)
    }
}
