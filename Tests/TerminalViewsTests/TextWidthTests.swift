import Glibc
import Testing

@testable import TerminalViews

/// Display width as a terminal counts it: every scalar against the C library's `wcwidth` in a UTF-8
/// locale (a different implementation, the one terminals on this system follow), and padding, fitting and
/// wrapping of Korean and Japanese by columns, not characters.
@Suite struct TextWidthTests {
    /// glibc's `wcwidth` for C.UTF-8, in this thread only (Swift's Glibc module leaves the function out),
    /// given to `body`.
    static func withCWidth<T>(_ body: ((UInt32) -> Int32) -> T) -> T {
        typealias WCWidth = @convention(c) (wchar_t) -> Int32
        let function = unsafeBitCast(dlsym(nil, "wcwidth")!, to: WCWidth.self)
        let locale = newlocale(Int32(1 << LC_CTYPE), "C.UTF-8", nil)
        let previous = uselocale(locale)
        defer {
            uselocale(previous)
            freelocale(locale)
        }
        return body { function(wchar_t(bitPattern: $0)) }
    }

    static func cWidth(_ value: UInt32) -> Int32 { withCWidth { $0(value) } }

    @Test func everyScalarHasTheWidthTheCLibraryGivesIt() {
        let differences = Self.withCWidth { cWidth in differingScalars(cWidth) }
        #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(10))")
        #expect(Self.cWidth(0xAC00) == 2, "the oracle itself counts Hangul as two")
    }

    /// Every scalar whose width here is not `cWidth`'s.
    func differingScalars(_ cWidth: (UInt32) -> Int32) -> [String] {
        var differences: [String] = []
        for value in UInt32(0x20)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value), !(0x7F..<0xA0).contains(value) else { continue }
            let expected = cWidth(value)
            // -1: unassigned or a control; a terminal shows one cell, and so do we.
            let wanted = expected < 0 ? 1 : Int(expected)
            if TextWidth.width(scalar) != wanted { differences.append("U+\(String(value, radix: 16)): \(TextWidth.width(scalar)) not \(wanted)") }
        }
        return differences
    }

    @Test func koreanAndJapaneseTakeTwoColumnsEach() {
        #expect(TextWidth.of("업데이트") == 8)
        #expect(TextWidth.of("アップデート") == 12)
        #expect(TextWidth.of("後で") == 4)
        #expect(TextWidth.of("Update") == 6)
        #expect(TextWidth.of("e\u{301}") == 1, "a combining accent takes no column")
        #expect(TextWidth.of("🏃") == 2)
        #expect(TextWidth.pad("나중에", 8) == "나중에  ")
        #expect(TextWidth.pad("Later", 8) == "Later   ")
        #expect(TextWidth.pad("업데이트", 4) == "업데이트", "padding never cuts")
    }

    @Test func wrappingBreaksAtSpacesAndInsideWordsWiderThanALine() {
        #expect(TextWidth.wrap("RunWay 1.5 is available on the App Store.", 20) == ["RunWay 1.5 is", "available on the App", "Store."])
        // Korean has spaces: broken there, counted in columns.
        let korean = TextWidth.wrap("Apple Watch 앱도 같이 업데이트해주세요.", 20)
        #expect(korean == ["Apple Watch 앱도", "같이", "업데이트해주세요."], "\(korean)")
        // Japanese has none: broken between characters, never past the width.
        let japanese = TextWidth.wrap("Apple Watchアプリも一緒にアップデートしてください。", 16)
        #expect(japanese.allSatisfy { TextWidth.of($0) <= 16 }, "\(japanese)")
        #expect(japanese.first == "Apple", "a word wider than the line starts one of its own")
        #expect(String(japanese.joined().filter { $0 != " " }) == "AppleWatchアプリも一緒にアップデートしてください。")
        // Paragraphs stay, empty lines included.
        #expect(TextWidth.wrap("a\n\nb", 10) == ["a", "", "b"])
        #expect(TextWidth.wrap("", 10) == [""])
        // Any text, any width: no line wider than asked (a character wider than the line stands alone).
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "러", "ラ", " ", "後", "Wide", "  ", "é", "\n"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let columns = Int.random(in: 2...30, using: &generator)
            for line in TextWidth.wrap(text, columns) { #expect(TextWidth.of(line) <= columns, "'\(line)' from '\(text)' at \(columns)") }
        }
    }
}
