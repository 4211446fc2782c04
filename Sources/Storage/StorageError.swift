import CSQLite

/// A failed SQLite call, with the context needed to act on it: the result code (`catch` matches on
/// `kind`), SQLite's message, the operation, and the statement's SQL — never the bound values.
package struct StorageError: Error, CustomStringConvertible, Sendable {
    package let resultCode: Int32
    package let extendedCode: Int32
    package let message: String
    package let operation: String
    package let sql: String?

    package init(resultCode: Int32, extendedCode: Int32? = nil, message: String, operation: String, sql: String? = nil) {
        self.resultCode = resultCode < 0 ? resultCode : resultCode & 0xFF
        self.extendedCode = extendedCode ?? resultCode
        self.message = message
        self.operation = operation
        self.sql = sql
    }

    package enum Kind: Sendable, Equatable {
        /// The disk or the database's page limit is full (`SQLITE_FULL`).
        case full
        /// The operating system reported an I/O error (`SQLITE_IOERR`).
        case ioError
        /// The file is not a healthy database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
        case corrupt
        /// Another connection holds the lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// A UNIQUE, PRIMARY KEY or CHECK constraint failed.
        case constraint
        /// The file could not be opened, or is read-only.
        case cannotOpen
        /// The schema is from a newer version of this program.
        case newerSchema
        case other
    }

    package var kind: Kind {
        switch resultCode {
        case SQLITE_FULL: .full
        case SQLITE_IOERR: .ioError
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CONSTRAINT: .constraint
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: .cannotOpen
        case -1: .newerSchema
        default: .other
        }
    }

    /// A storage fault that may pass (space freed, I/O retried), as opposed to a bug or bad data.
    package var isTransient: Bool {
        switch kind {
        case .full, .ioError, .busy: true
        default: false
        }
    }

    package var description: String {
        var text = "\(operation): \(message) (SQLite \(extendedCode))"
        if let sql { text += " in \"\(sql.prefix(120))\"" }
        return text
    }

    static func newerSchema(_ unknown: [String], path: String) -> StorageError {
        StorageError(
            resultCode: -1,
            message: "the store at \(path) was written by a newer version (unknown migrations: \(unknown.joined(separator: ", ")))",
            operation: "migrate")
    }
}
