import Posix
import Testing

/// Issue 53 item 5: what an app tells its OS on `NOTIFY_SOCKET` is one typed notice, written by one
/// encoder (`line`) and read by one decoder (`init?(line:)`): each reads back as itself, the words an app
/// passes are kept to one line, and what is not a notice (sd_notify's own lines, a malformed value, a
/// newer app's notice) is none — the OS passes it over.
@Suite struct AppNoticeTests {
    static let every: [AppNotice] = [
        .delivered, .message, .idle, .workout(running: true), .workout(running: false), .taskHanded, .taskCompleted,
        .refreshScheduled(at: 1_800_000_000.5), .complicationReload(kind: "timeline"), .haptic(type: "success"), .watchSwitchOptOut,
    ]

    @Test func eachNoticeReadsBackAsItself() {
        for notice in Self.every {
            #expect(AppNotice(line: Substring(notice.line)) == notice, "\(notice.line)")
            #expect(notice.line.hasPrefix("X_") && !notice.line.contains("\n"))
        }
        #expect(Set(Self.every.map(\.line)).count == Self.every.count, "every notice its own line")
    }

    @Test func anAppsWordStaysOneWordOfOneLine() {
        let notice = AppNotice.complicationReload(kind: "a=b\nREADY=1")
        #expect(notice.line == "X_RELOAD=a_b_READY_1")
        #expect(AppNotice(line: Substring(notice.line)) == .complicationReload(kind: "a_b_READY_1"))
        #expect(AppNotice.haptic(type: "").line == "X_HAPTIC=_")
        #expect(AppNotice.haptic(type: String(repeating: "x", count: 500)).line.utf8.count == "X_HAPTIC=".utf8.count + 200)
    }

    @Test func whatIsNotANoticeIsNone() {
        for line in [
            "READY=1", "STATUS=failed", "MAINPID=42", "FDSTORE=1", "X_WORKOUT=2", "X_IDLE=0", "X_REFRESH_AT=soon", "X_REFRESH_AT=inf", "X_NEW=1", "X_DELIVERED",
            "",
        ] {
            #expect(AppNotice(line: Substring(line)) == nil, "\(line)")
        }
    }
}
