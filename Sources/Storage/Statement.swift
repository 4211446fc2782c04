import CSQLite

/// A prepared statement, owned by the `Database` that made it and finalized exactly once.
///
/// Values are bound by 1-based index; columns are read by 0-based index, as in SQLite's C API.
package final class Statement {
    let handle: OpaquePointer
    package let sql: String
    private unowned let database: Database

    init(database: Database, sql: String) throws(StorageError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code, "prepare", sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = database
    }

    deinit { finalize() }

    private var isFinalized = false

    /// Finalizes the statement (once). `Database.close()` finalizes the statements still held by their
    /// owners, so that the connection really closes (checkpointing and removing the write-ahead log)
    /// instead of lingering until the last of them goes; such a statement must not be used again.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    // MARK: - Binding

    package func bind(_ value: Int64, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, value), "bind")
    }

    package func bind(_ value: Int, at index: Int32) throws(StorageError) {
        try bind(Int64(value), at: index)
    }

    package func bind(_ value: Double, at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_double(handle, index, value), "bind")
    }

    package func bind(_ value: String, at index: Int32) throws(StorageError) {
        var text = value
        let code = text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) {
                runway_sqlite3_bind_text_transient(handle, index, $0.baseAddress, Int32($0.count))
            }
        }
        try check(code, "bind")
    }

    package func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32) throws(StorageError) {
        // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
        let code =
            bytes.count == 0
            ? sqlite3_bind_zeroblob(handle, index, 0)
            : runway_sqlite3_bind_blob_transient(handle, index, bytes.baseAddress, Int32(bytes.count))
        try check(code, "bind")
    }

    package func bind(blob bytes: [UInt8], at index: Int32) throws(StorageError) {
        let code = bytes.withUnsafeBytes { raw in
            raw.count == 0
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : runway_sqlite3_bind_blob_transient(handle, index, raw.baseAddress, Int32(raw.count))
        }
        try check(code, "bind")
    }

    package func bindNull(at index: Int32) throws(StorageError) {
        try check(sqlite3_bind_null(handle, index), "bind")
    }

    // MARK: - Stepping

    /// Steps through every row, each made into a value by `row` (which reads this statement's columns).
    package func rows<Row>(_ row: (Statement) -> Row) throws(StorageError) -> [Row] {
        var rows: [Row] = []
        while try step() { rows.append(row(self)) }
        return rows
    }

    /// Advances to the next row: true while a row is available, false when done.
    @discardableResult
    package func step() throws(StorageError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code, "step", sql: sql)
            sqlite3_reset(handle)
            database.lastStatementError = error
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    package func run() throws(StorageError) {
        defer { reset() }
        while try step() {}
    }

    /// Resets the statement and clears its bindings, ready for the next use.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns

    package func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func int(at column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    package func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }
    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func optionalString(at column: Int32) -> String? {
        isNull(at: column) ? nil : string(at: column)
    }

    /// How many columns a row of this statement has.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// A column's name: its `AS` name, else the column's own.
    package func columnName(at column: Int32) -> String {
        guard let name = sqlite3_column_name(handle, column) else { return "" }
        return String(cString: name)
    }

    /// The storage class of a column's value in the current row.
    package enum ColumnType: Sendable {
        case integer, real, text, blob, null
    }

    package func columnType(at column: Int32) -> ColumnType {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// The column's bytes, valid only inside `body` (no copy).
    package func withBlob<R>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    package func blob(at column: Int32) -> [UInt8] {
        withBlob(at: column) { Array($0) }
    }

    private func check(_ code: Int32, _ operation: String) throws(StorageError) {
        guard code == SQLITE_OK else { throw database.error(code, operation, sql: sql) }
    }
}
