import Foundation

/// One glass of water logged on the watch.
public struct WaterEntry: Equatable, Sendable {
    public var id: String
    public var millilitres: Int
    public var loggedAt: Date

    public init(id: String, millilitres: Int, loggedAt: Date) {
        self.id = id
        self.millilitres = millilitres
        self.loggedAt = loggedAt
    }

    /// What the watch hands `transferUserInfo`.
    public var userInfo: [String: Any] { ["id": id, "millilitres": millilitres, "loggedAt": loggedAt] }

    public init?(userInfo: [String: Any]) {
        guard let id = userInfo["id"] as? String, let millilitres = userInfo["millilitres"] as? Int, let loggedAt = userInfo["loggedAt"] as? Date
        else { return nil }
        self.init(id: id, millilitres: millilitres, loggedAt: loggedAt)
    }
}

/// The app's log file in its Documents folder: one line per entry, `id millilitres`, fsync'd.
public enum EntryLog {
    public static func append(_ entry: WaterEntry) throws {
        try LineLog(name: "entries.log").append("\(entry.id) \(entry.millilitres)")
    }
}

/// A file of lines in the app's Documents folder, each appended and fsync'd before `append` returns.
public struct LineLog {
    public let url: URL

    public init(name: String) {
        url = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent(name)
    }

    public func append(_ line: String) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((line + "\n").utf8))
        try handle.synchronize()
    }
}
