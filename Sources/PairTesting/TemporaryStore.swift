import Storage

/// A fresh store for a unit test: a new directory (`makeTemporaryDirectory(tag)`) holding `file`, opened
/// with `migrations` applied. The caller closes the database and removes the directory (`removeDirectory`).
package func makeTemporaryStore(_ tag: String, file: String = "s.sqlite", _ migrations: [Migration]) throws -> (directory: String, database: Database) {
    let directory = makeTemporaryDirectory(tag)
    let database = try Database(path: directory + "/" + file)
    try Migrator.migrate(database, migrations)
    return (directory, database)
}
