import CSQLite

/// SQLite's process-wide settings, made once before the first connection opens (`sqlite3_config` is
/// refused once the library is initialised). Every place that opens a connection calls `prepare()`.
enum SQLiteLibrary {
    /// No initial bulk allocation for each connection's page cache. SQLite's default allocates 20 pages
    /// (87 kB) when a connection first reads, and writes a header into every one of them, so each
    /// connection held 87 kB of private memory whether or not it ever used the pages: 523 kB of an idle
    /// phone-daemon's heap (six connections: three stores and their checkpointers and check). Pages now come
    /// one at a time as a connection uses them, up to its `cache_size` as before. And no process-wide
    /// memory statistics, which cost a global mutex around every allocation (nothing reads them).
    private static let prepared: Int32 = runway_sqlite3_config_no_bulk_page_cache() | runway_sqlite3_config_no_memory_statistics()

    static func prepare() {
        _ = prepared
    }
}
