import PairTesting
import Testing

/// The emulator the view tests read screens with: if it were wrong, they would prove nothing.
@Suite struct ScreenEmulatorTests {
    @Test func drawsInPlaceAndErases() {
        var screen = ScreenEmulator(columns: 10, rows: 3)
        screen.feed("hello\r\nworld")
        #expect(screen.lines == ["hello", "world", ""])
        screen.feed("\u{1B}[H" + "HI\u{1B}[K")
        #expect(screen.lines == ["HI", "world", ""], "home, overwrite, erase the rest of the line")
        screen.feed("\u{1B}[2;3H" + "\u{1B}[J")
        #expect(screen.lines == ["HI", "wo", ""], "erase from the cursor to the end of the screen")
        screen.feed("\u{1B}[2J")
        #expect(screen.text == "\n\n")
    }

    /// A wide character takes two cells, as on a terminal; a combining mark none.
    @Test func wideCharactersTakeTwoCells() {
        var screen = ScreenEmulator(columns: 12, rows: 2)
        screen.feed("|업데이트|\r\n|Update  |")
        #expect(screen.lines == ["|업데이트|", "|Update  |"])
        #expect(screen.cells(of: "|", inRow: 0) == [0, 9])
        #expect(screen.cells(of: "|", inRow: 1) == [0, 9])
        screen.feed("\u{1B}[H" + "e\u{301}x")
        #expect(screen.cells(of: "x", inRow: 0) == [1])
        // A wide character that does not fit at the right edge is not drawn half.
        var narrow = ScreenEmulator(columns: 3, rows: 1)
        narrow.feed("ab러")
        #expect(narrow.lines == ["ab"])
    }

    @Test func scrollsAtTheBottomAndCutsAtTheRightEdge() {
        var screen = ScreenEmulator(columns: 4, rows: 2)
        screen.feed("abcdef\r\n12\r\n34")
        #expect(screen.lines == ["12", "34"])
        #expect(!screen.text.contains("ef"))
    }

    @Test func theAlternateScreenAndTheCursorAreGivenBack() {
        var screen = ScreenEmulator(columns: 8, rows: 2)
        screen.feed("$ top\r\n")
        screen.feed("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2Jview")
        #expect(screen.isAlternateScreen && !screen.cursorVisible)
        #expect(screen.lines == ["view", ""])
        // A sequence cut by CAN (what a signal handler sends first) draws nothing.
        screen.feed("\u{1B}[3\u{18}\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        #expect(!screen.isAlternateScreen && screen.cursorVisible)
        #expect(screen.lines == ["$ top", ""], "the main screen as it was")
    }
}
