import Posix

/// stdout and stderr without Foundation.
enum Output {
    /// Set while a command without a JSON form runs under `--json`: its lines are gathered, not printed.
    nonisolated(unsafe) static var captured: [String]?

    static func out(_ text: String) {
        if captured != nil {
            captured!.append(text)
            return
        }
        write(1, text.hasSuffix("\n") ? text : text + "\n")
    }
    static func err(_ text: String) { write(2, text.hasSuffix("\n") ? text : text + "\n") }

    static func write(_ fd: Int32, _ text: String) {
        var copy = text
        copy.withUTF8 { writeBytes(fd, UnsafeRawBufferPointer($0)) }
    }

    static func writeBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            // A closed pipe (`runway … | head`) ends the output, silently.
            guard let n = try? systemCall("write", { writeToDescriptor(fd, bytes.baseAddress! + offset, bytes.count - offset) }) else { return }
            offset += n
        }
    }

    static func writeBytes(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeBytes(fd, $0) }
    }
}

/// The C library's `write` (inside `Output` its own `write` is nearer).
private func writeToDescriptor(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
