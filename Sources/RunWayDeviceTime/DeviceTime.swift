import Glibc
import Synchronization

// The device's clock in an app's process: a preload (`LD_PRELOAD`) the device's OS sets for the apps it
// launches (`DeviceTimePreload`, in AppHost), so that what the app's own code reads as the time —
// Foundation's `Date()`, `CFAbsoluteTimeGetCurrent`, `DispatchWallTime.now()`, SQLite's 'now', C's
// `time()` — is the device's, which `runway clock set|advance|reset` moves, and not the host's. Nothing the
// app writes changes for it (issue 49).
//
// The C library's `clock_gettime` (for CLOCK_REALTIME and CLOCK_REALTIME_COARSE), `gettimeofday` and
// `time` are defined here; each asks the next definition (the C library's, found with
// `dlsym(RTLD_NEXT, …)`) and moves the real time by the device clock's offset — or, while the clock is
// frozen, answers its instant. Monotonic clocks are left alone: timers, time-outs and sleeps run on real
// time, as the device's own do (docs/device-time.md).
//
// The clock is read, at every call, from a page the OS keeps (`HOME/device-clock`, named by
// `RUNWAY_DEVICE_CLOCK`; written by `OSServices.DeviceClockPage`, mapped here read-only): one 64-bit word
// after a magic word, `nanoseconds × 2 + mode` — mode 0, the offset from real time; mode 1, the frozen
// instant since 1970. One atomic load, so a `clock advance` while the app runs moves the app's time at once.
// Without the variable, or the page, the time is the host's.
//
// The device's own code in the app's process (its log lines, the session's bookkeeping) keeps real time:
// `runway_real_clock_gettime`, which `Posix.wallClockSeconds()` looks up when this preload is loaded.
//
// This library is C-shaped on purpose: no allocation and no Foundation on these paths, which the C library
// and the Swift runtime may call at any moment.

/// The page's first word: "RWDT", layout 1.
private let pageMagic: Int64 = 0x5257_4454_0000_0001
private let realtime: clockid_t = CLOCK_REALTIME
private let realtimeCoarse: clockid_t = CLOCK_REALTIME_COARSE

private typealias ClockGetTime = @convention(c) (clockid_t, UnsafeMutablePointer<timespec>?) -> Int32

/// 0: not looked up yet; 1: none (no variable, no page); otherwise the address of the clock's word.
private let clockWordAddress = Atomic<UInt>(0)
/// 0: not looked up yet; otherwise the C library's `clock_gettime`.
private let nextClockGetTimeAddress = Atomic<UInt>(0)

private func nextClockGetTime() -> ClockGetTime? {
    var address = nextClockGetTimeAddress.load(ordering: .acquiring)
    if address == 0 {
        // RTLD_NEXT is ((void *) -1) in glibc.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "clock_gettime") else { return nil }
        address = UInt(bitPattern: symbol)
        nextClockGetTimeAddress.store(address, ordering: .releasing)
    }
    return unsafeBitCast(UnsafeRawPointer(bitPattern: address), to: ClockGetTime.self)
}

/// The clock's word in the OS's page, mapped at the first call; nil when there is none.
private func clockWord() -> UnsafePointer<Atomic<Int64>>? {
    var address = clockWordAddress.load(ordering: .acquiring)
    if address == 0 {
        address = mapPage()
        let (exchanged, original) = clockWordAddress.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
        if !exchanged {
            if address > 1 { munmap(UnsafeMutableRawPointer(bitPattern: address - 8), 16) }
            address = original
        }
    }
    guard address > 1, let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
    return pointer.assumingMemoryBound(to: Atomic<Int64>.self)
}

/// Maps `RUNWAY_DEVICE_CLOCK` read-only: the address of its clock word, or 1 when there is no valid page.
private func mapPage() -> UInt {
    guard let path = getenv("RUNWAY_DEVICE_CLOCK") else { return 1 }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return 1 }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_size >= 16 else { return 1 }
    guard let base = mmap(nil, 16, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else { return 1 }
    let words = UnsafeRawPointer(base).assumingMemoryBound(to: Atomic<Int64>.self)
    guard words[0].load(ordering: .acquiring) == pageMagic else {
        munmap(base, 16)
        return 1
    }
    return UInt(bitPattern: base) + 8
}

private let nanosecondsPerSecond: Int64 = 1_000_000_000

/// `time` as the device has it: moved by the offset, or the frozen instant.
private func deviceTime(_ time: inout timespec) {
    guard let word = clockWord() else { return }
    let encoded = word.pointee.load(ordering: .acquiring)
    let nanoseconds = encoded >> 1
    var total: Int64
    if encoded & 1 == 1 {
        total = nanoseconds
    } else {
        let (seconds, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: nanosecondsPerSecond)
        guard !overflow else { return }
        total = seconds &+ Int64(time.tv_nsec) &+ nanoseconds
    }
    var seconds = total / nanosecondsPerSecond
    var remainder = total % nanosecondsPerSecond
    if remainder < 0 {
        remainder += nanosecondsPerSecond
        seconds -= 1
    }
    time.tv_sec = time_t(seconds)
    time.tv_nsec = Int(remainder)
}

/// The real time, whatever the device's clock says: for the device's own code in the app's process.
@_cdecl("runway_real_clock_gettime")
public func runwayRealClockGetTime(_ clock: clockid_t, _ time: UnsafeMutablePointer<timespec>?) -> Int32 {
    guard let next = nextClockGetTime() else {
        errno = ENOSYS
        return -1
    }
    return next(clock, time)
}

@_cdecl("clock_gettime")
public func runwayClockGetTime(_ clock: clockid_t, _ time: UnsafeMutablePointer<timespec>?) -> Int32 {
    guard let next = nextClockGetTime() else {
        errno = ENOSYS
        return -1
    }
    let result = next(clock, time)
    if result == 0, let time, clock == realtime || clock == realtimeCoarse { deviceTime(&time.pointee) }
    return result
}

@_cdecl("gettimeofday")
public func runwayGetTimeOfDay(_ value: UnsafeMutablePointer<timeval>?, _ zone: UnsafeMutableRawPointer?) -> Int32 {
    guard let value else { return 0 }
    var now = timespec()
    guard runwayClockGetTime(realtime, &now) == 0 else { return -1 }
    value.pointee.tv_sec = now.tv_sec
    value.pointee.tv_usec = now.tv_nsec / 1000
    return 0
}

@_cdecl("time")
public func runwayTime(_ result: UnsafeMutablePointer<time_t>?) -> time_t {
    var now = timespec()
    guard runwayClockGetTime(realtime, &now) == 0 else { return -1 }
    result?.pointee = now.tv_sec
    return now.tv_sec
}
