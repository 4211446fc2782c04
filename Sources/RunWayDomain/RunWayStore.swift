/// The RunWay apps' own store: `Library/Application Support/RunWay.sqlite` in the app's container (as a
/// SwiftData store would be on iOS), WAL, FULL. Where it is, here, for whoever reads it (the CLI, the
/// checker); how the app opens and migrates it, in `RunWayApp`.
public enum RunWayStore {
    public static let bundleIDs = (phone: "com.runway.RunWay", watch: "com.runway.RunWay.watchkitapp")

    public static func path(container: String) -> String { container + "/Library/Application Support/RunWay.sqlite" }

    /// The page size of a new store: 16 KiB, not SQLite's 4 KiB. A received flight (~1.8 kB) and its
    /// rows then fill a quarter as many pages: a quarter of the log's writes and of the checkpoint's,
    /// fewer page splits. The drain of 50,000 went from 44,000–56,000 to 62,000–66,000 flights/s in six
    /// alternating rounds; an idle daemon's memory did not change (issue 26, `docs/performance.md`). A
    /// store created before keeps its 4 KiB (changing it would rewrite the whole file).
    public static let pageSize = 16_384
}
