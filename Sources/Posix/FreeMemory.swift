import CLinux

/// Gives the kernel back the heap pages nothing uses any more (`malloc_trim`): free space inside the
/// allocator's arenas, not only at their top. A daemon calls it once it is ready: what start-up
/// allocated and freed (a fresh store's migrations re-parse its schema once per statement) otherwise
/// stays resident for the daemon's whole life — ~0.6 MB of a fresh phone-daemon's 3.6 MB, which a
/// thousand idle pairs pay two thousand times.
package enum FreeMemory {
    /// True if some memory was released.
    @discardableResult
    package static func releaseUnused() -> Bool { malloc_trim(0) == 1 }

    /// Every thread allocates from the one main arena (`M_ARENA_MAX` 1), before any thread starts. By
    /// default each thread that allocates gets an arena of its own, and `malloc_trim` never gives back
    /// the free space at the top of a thread's arena (only the main one's): a fresh phone-daemon kept
    /// ~230 kB of its start-up threads' freed heap that way. A daemon's threads besides its loop (the
    /// checkpointers, a background check) allocate little, so the one arena's lock is rarely contended
    /// (and a daemon started by our launchers has no per-thread cache either: `daemonTunables`).
    package static func useOneArena() { _ = mallopt(M_ARENA_MAX, 1) }

    /// The allocator settings a daemon is started with (`GLIBC_TUNABLES`, which glibc reads only when a
    /// program starts, so the launchers pass it: `runway up`, an OS launching its app, the harness): no
    /// per-thread cache of freed chunks (`tcache_count=0`). Nothing returns that cache's chunks to the
    /// kernel while the thread lives — `malloc_trim` skips them — and after a first start the loop's
    /// cache held ~80 kB of an idle phone-daemon's ~870 kB. Without it an allocation takes the one
    /// arena's lock, which a daemon's two busy threads rarely contend for: the drain was no slower.
    package static let daemonTunables = "glibc.malloc.tcache_count=0"

    /// `environment` ("NAME=value" entries) for a daemon: `GLIBC_TUNABLES` set to `daemonTunables`,
    /// unless the environment sets it already (the user's own choice wins).
    package static func daemonEnvironment(_ environment: [String]) -> [String] {
        environment.contains { $0.hasPrefix("GLIBC_TUNABLES=") } ? environment : environment + ["GLIBC_TUNABLES=\(daemonTunables)"]
    }
}
