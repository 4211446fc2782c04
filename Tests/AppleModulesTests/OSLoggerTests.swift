import Foundation
import Testing

@testable import os

/// `os.Logger`'s lines: the device's `key=value` format, the level by type, privacy and number formats.
@Suite struct OSLoggerTests {
    /// The lines `body` logs through a logger writing to a pipe.
    func lines(_ body: (Logger) -> Void) -> [String] {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        body(Logger(subsystem: "com.example.water", category: "session", descriptor: fds[1]))
        close(fds[1])
        let data = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func aLineInTheDevicesFormat() throws {
        let written = lines { $0.info("activated: \(true) reachable=\(false, format: .answer)") }
        let line = try #require(written.first)
        #expect(line.hasPrefix("ts="))
        #expect(
            line.hasSuffix(
                #" level=info component=app event=os.log subsystem=com.example.water category=session type=info message="activated: true reachable=NO""#),
            "\(line)")
    }

    @Test func levelsFollowTheType() {
        let written = lines { logger in
            logger.debug("d")
            logger.notice("n")
            logger.log("l")
            logger.error("e")
            logger.fault("f")
            logger.log(level: .info, "i")
        }
        let levels = written.map { line in line.split(separator: " ").filter { $0.hasPrefix("level=") || $0.hasPrefix("type=") }.joined(separator: " ") }
        #expect(
            levels == [
                "level=debug type=debug", "level=notice type=default", "level=notice type=default", "level=error type=error", "level=error type=fault",
                "level=info type=info",
            ])
    }

    @Test func privacyAndFormats() {
        let name = "Ana", token = "s3cret", ml = 250, seconds = 1.23456
        let message: OSLogMessage =
            "\(name, privacy: .public) \(token, privacy: .private) \(token, privacy: .private(mask: .hash)) \(ml) \(ml, privacy: .private) \(seconds, format: .fixed(precision: 2)) \(ml, format: .hex(includePrefix: true)) \(7, format: .decimal(minDigits: 3)) \(name, align: .right(columns: 5))|"
        let text = message.rendered
        #expect(text.hasPrefix("Ana <private> <mask.hash: '"), "\(text)")
        #expect(!text.contains("s3cret"))
        #expect(text.hasSuffix(" 250 <private> 1.23 0xfa 007   Ana|"), "\(text)")
        // The same value masks the same way each time.
        let again: OSLogMessage = "\(token, privacy: .private(mask: .hash))"
        #expect(text.contains(again.rendered))
    }

    @Test func aMessageWithQuotesAndNewlinesStaysOneLine() {
        let written = lines { $0.error("bad \("a \"quoted\"\nvalue", privacy: .public)") }
        #expect(written.count == 1)
        #expect(written.first?.hasSuffix(#"message="bad a \"quoted\"\nvalue""#) == true, "\(written)")
    }
}
