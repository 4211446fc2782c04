import Glibc

/// A source of monotonic time in nanoseconds. Timers, backoff and time-outs take one, so tests can move
/// a `ManualClock` instead of sleeping.
package protocol MonotonicClock: AnyObject {
    var nowNanoseconds: UInt64 { get }
}

/// `CLOCK_MONOTONIC`.
package final class SystemClock: MonotonicClock {
    package init() {}
    package var nowNanoseconds: UInt64 { Self.now() }

    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A clock that moves only when told to.
package final class ManualClock: MonotonicClock {
    package var nowNanoseconds: UInt64
    package init(startingAt nanoseconds: UInt64 = 1_000_000_000) { nowNanoseconds = nanoseconds }
    package func advance(byMilliseconds ms: UInt64) { nowNanoseconds += ms * 1_000_000 }
}

/// Wall-clock time as seconds since 1970, for timestamps that leave the process: the host's real time,
/// also in an app whose OS set the device-time preload (`RunWayDeviceTime`, which moves the C library's
/// clock by the device clock's offset for the app's own code): the device's code in that process — its
/// log lines, the session's bookkeeping, the device clock it keeps from the OS's offset — reads the real
/// clock through the preload's `runway_real_clock_gettime`.
package func wallClockSeconds() -> Double {
    var ts = timespec()
    if let real = realClockGetTime {
        _ = real(CLOCK_REALTIME, &ts)
    } else {
        clock_gettime(CLOCK_REALTIME, &ts)
    }
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The device-time preload's real clock, when the preload is loaded in this process (looked up once).
private let realClockGetTime: (@convention(c) (clockid_t, UnsafeMutablePointer<timespec>?) -> Int32)? = {
    guard let symbol = dlsym(nil, "runway_real_clock_gettime") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (clockid_t, UnsafeMutablePointer<timespec>?) -> Int32).self)
}()
