import Posix
import Synchronization

/// The device clock as the apps' processes read it: `HOME/device-clock`, a small file the clock's keeper
/// (phone-os, watch-os, or the device's own process standalone) maps and rewrites at every change, and
/// which the device-time preload (`RunWayDeviceTime`, set by the OS for the apps it launches) maps in the
/// app's process to move the app's `Date()` (docs/device-time.md). One 64-bit word after a magic word:
/// `nanoseconds × 2 + mode`, mode 0 the offset from real time, mode 1 the frozen instant since 1970 — one
/// atomic store, so a reader never sees half a change and a `clock advance` reaches a running app at once.
/// The layout is the preload's too (`Sources/RunWayDeviceTime/DeviceTime.swift`); `DeviceClockPageTests`
/// reads what this writes.
package final class DeviceClockPage {
    /// The file's name in the device's home.
    package static let fileName = "device-clock"
    /// The variable naming it in the app's environment.
    package static let variable = "RUNWAY_DEVICE_CLOCK"
    /// "RWDT", layout 1.
    package static let magic: Int64 = 0x5257_4454_0000_0001

    package var path: String { file.path }
    private let file: MappedFile
    private let words: UnsafeMutablePointer<Atomic<Int64>>

    package static func path(home: String) -> String { home + "/" + fileName }

    /// Maps the page of `home` (created, mode 0600, if missing).
    package init(home: String) throws {
        file = try MappedFile(path: Self.path(home: home), byteCount: 16)
        words = file.base.bindMemory(to: Atomic<Int64>.self, capacity: 2)
        words[0].store(Self.magic, ordering: .releasing)
    }

    /// The word for a clock reading.
    package static func encode(mode: DeviceClock.Mode, offsetSeconds: Double, frozenAt: Double) -> Int64 {
        let seconds = mode == .frozen ? frozenAt : offsetSeconds
        let nanoseconds = Int64((seconds * 1e9).rounded())
        return nanoseconds &* 2 &+ (mode == .frozen ? 1 : 0)
    }

    /// Publishes the clock: apps see it at their next reading of the time.
    package func publish(mode: DeviceClock.Mode, offsetSeconds: Double, frozenAt: Double) {
        words[1].store(Self.encode(mode: mode, offsetSeconds: offsetSeconds, frozenAt: frozenAt), ordering: .releasing)
    }

    /// The word as it is now (tests).
    package var word: Int64 { words[1].load(ordering: .acquiring) }
}
