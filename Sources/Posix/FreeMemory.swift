import CLinux

/// Gives the kernel back the heap pages nothing uses any more (`malloc_trim`): free space inside the
/// allocator's arenas, not only at their top. A daemon calls it once it is ready: what start-up
/// allocated and freed (a fresh store's migrations re-parse its schema once per statement) otherwise
/// stays resident for the daemon's whole life — ~0.6 MB of a fresh phone-daemon's 3.6 MB, which a
/// thousand idle pairs pay two thousand times.
public enum FreeMemory {
    /// True if some memory was released.
    @discardableResult
    public static func releaseUnused() -> Bool { malloc_trim(0) == 1 }

    /// Every thread allocates from the one main arena (`M_ARENA_MAX` 1), before any thread starts. By
    /// default each thread that allocates gets an arena of its own, and `malloc_trim` never gives back
    /// the free space at the top of a thread's arena (only the main one's): a fresh phone-daemon kept
    /// ~230 kB of its start-up threads' freed heap that way. A daemon's threads besides its loop (the
    /// checkpointers, a background check) allocate little, and each thread's cache (tcache) still
    /// serves most of its allocations without the arena's lock.
    public static func useOneArena() { _ = mallopt(M_ARENA_MAX, 1) }
}
