import Posix
import Testing

/// Names made by joining parts stay within NAME_MAX, keep their extension and never split a character.
@Suite struct FileNamesTests {
    @Test func aShortNameIsJoinedUnchanged() {
        #expect(FileNames.fitting("route.gpx", prefix: "ab12cd34-7-") == "ab12cd34-7-route.gpx")
        #expect(FileNames.fitting("report.pdf", tag: " 2") == "report 2.pdf")
        #expect(FileNames.fitting(".profile", tag: " 2") == ".profile 2")
    }

    @Test func aLongNameIsCutInItsStemAndKeepsItsExtension() {
        let name = String(repeating: "r", count: 250) + ".gpx"
        let fitted = FileNames.fitting(name, prefix: "ab12cd34-17-")
        #expect(fitted.utf8.count == 255)
        #expect(fitted.hasPrefix("ab12cd34-17-rrr") && fitted.hasSuffix("r.gpx"))
        let numbered = FileNames.fitting(String(repeating: "x", count: 255), tag: " 12")
        #expect(numbered.utf8.count == 255 && numbered.hasSuffix("x 12"))
    }

    @Test func aCutNeverSplitsACharacter() {
        let name = String(repeating: "달", count: 100) + ".jpg"  // 3 bytes each
        let fitted = FileNames.fitting(name, prefix: "p-")
        #expect(fitted.utf8.count <= 255 && fitted.utf8.count > 250)
        #expect(fitted.hasSuffix("달.jpg") && !fitted.contains("\u{FFFD}"))
    }

    /// Total: whatever the parts, the result fits (the property `scripts/fuzz` would draw from).
    @Test func anyPartsGiveANameThatFits() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", ".", "달", "é", "🏃‍♀️", " ", "-", "Z"]
        func draw(_ most: Int) -> String { String((0..<Int.random(in: 0...most, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) }
        for _ in 0..<2000 {
            let (name, prefix, tag) = (draw(300), draw(40), draw(8))
            let fitted = FileNames.fitting(name, prefix: prefix, tag: tag)
            #expect(fitted.utf8.count <= FileNames.maximumBytes, "\(name.utf8.count) + \(prefix.utf8.count) + \(tag.utf8.count)")
            if (prefix + name + tag).utf8.count <= FileNames.maximumBytes { #expect(fitted.utf8.count == (prefix + name + tag).utf8.count) }
        }
    }
}
