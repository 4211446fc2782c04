// The whole of SQLite's C surface that Swift sees. Macros that Swift cannot import
// (SQLITE_TRANSIENT is a cast of -1 to a function pointer) become functions here.
#ifndef RUNWAY_CSQLITE_SHIM_H
#define RUNWAY_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Bind text/blob with SQLITE_TRANSIENT: SQLite copies the bytes before returning.
static inline int runway_sqlite3_bind_text_transient(sqlite3_stmt *s, int i, const char *p, int n) {
    return sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT);
}
static inline int runway_sqlite3_bind_blob_transient(sqlite3_stmt *s, int i, const void *p, int n) {
    return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}
/// sqlite3_db_config is variadic; Swift cannot call it directly.
static inline int runway_sqlite3_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
/// Closing the last connection normally checkpoints the write-ahead log into the database file: not
/// into a store found damaged.
static inline int runway_sqlite3_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
/// sqlite3_config is variadic too. A page cache with no initial bulk allocation: each connection gets
/// pages as it uses them, instead of 20 at once (87 kB, every page written as it is threaded onto the
/// free list). Only before SQLite is initialised; returns SQLITE_MISUSE after.
static inline int runway_sqlite3_config_no_bulk_page_cache(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
/// No process-wide memory statistics (`sqlite3_memory_used` and the like, which nothing here reads):
/// with them SQLite takes a global mutex around every allocation and free, ~3,000 instructions of a
/// received flight's ~65,000. Only before SQLite is initialised.
static inline int runway_sqlite3_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
