import CSQLite

/// One schema change, identified by a stable id such as `"connectivity.1"`.
package struct Migration: Sendable {
    package let id: String
    package let sql: String

    package init(_ id: String, _ sql: String) {
        self.id = id
        self.sql = sql
    }
}

/// Applies the migrations a store has not applied yet, in order, all in one transaction that also
/// records their ids: a crash or a failing migration leaves the store at the version it had before,
/// and a fresh store pays one commit (one fsync) for its whole schema, not one per migration — a
/// phone-daemon's first start made 31 fsyncs, which two thousand daemons starting at once queue on
/// one disk.
///
/// Every layer that owns tables contributes its own migrations; ids are namespaced by layer. A store
/// that has applied a migration this program does not know came from a newer version: refused.
///
/// A store with migrations pending gets them on a connection of its own, closed at once: a new store's
/// schema, created statement by statement, is parsed again after each one, and on the caller's
/// connection that churn left the heap fragmented for the daemon's life (a first start's idle
/// phone-daemon held ~150 kB more heap than the same one started again). The caller's connection then
/// reads the finished schema once.
package enum Migrator {
    package static func migrate(_ database: Database, _ migrations: [Migration]) throws {
        let applied = try appliedIDs(database, knowing: migrations)
        guard migrations.contains(where: { !applied.contains($0.id) }) else { return }
        guard database.hasFile else { return try apply(migrations, on: database) }
        let connection = try Database(path: database.path)
        defer { connection.close() }
        try apply(migrations, on: connection)
    }

    /// The ids a store has applied (none if it has no table of them yet), refused if one of them is not
    /// among `migrations`: the store came from a newer version.
    private static func appliedIDs(_ database: Database, knowing migrations: [Migration]) throws -> Set<String> {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") > 0 else {
            return []
        }
        var applied = Set<String>()
        let query = try database.prepare("SELECT id FROM schema_migrations")
        while try query.step() { applied.insert(query.string(at: 0)) }
        let unknown = applied.subtracting(migrations.map(\.id)).sorted()
        guard unknown.isEmpty else { throw StorageError.newerSchema(unknown, path: database.path) }
        return applied
    }

    /// The pending migrations in one transaction, the applied ones read again inside it (another
    /// process may have migrated since).
    ///
    /// Foreign keys are off while they run, as SQLite's procedure for a schema change asks: a table
    /// rebuilt by copy, drop and rename would otherwise have its drop delete its children's rows
    /// (`ON DELETE CASCADE`). `foreign_key_check` before the commit refuses migrations that leave a
    /// reference dangling.
    private static func apply(_ migrations: [Migration], on database: Database) throws {
        try database.execute("PRAGMA foreign_keys=OFF")
        defer { try? database.execute("PRAGMA foreign_keys=ON") }
        try database.transaction {
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    id TEXT PRIMARY KEY NOT NULL,
                    applied_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                ) STRICT
                """)
            let applied = try appliedIDs(database, knowing: migrations)
            for migration in migrations where !applied.contains(migration.id) {
                try database.execute(migration.sql)
                let record = try database.statement("INSERT INTO schema_migrations (id) VALUES (?)")
                try record.bind(migration.id, at: 1)
                try record.run()
            }
            let check = try database.prepare("PRAGMA foreign_key_check")
            if try check.step() {
                throw StorageError(
                    resultCode: SQLITE_CONSTRAINT,
                    message: "the migrations left a row of \(check.string(at: 0)) referring to a missing row of \(check.string(at: 2))",
                    operation: "migrate \(database.path)")
            }
        }
    }
}
