import JSONText

/// A command's reply as a Swift type: the daemon encodes it (`connection.reply(reply)`), the client
/// decodes it (`client.send(request, as: RecordReply.self)`), and each key is spelled once, in its
/// type's `Key`. Replies that are streamed, large or free-form stay JSON (see `docs/protocol.md`); a
/// partly free-form one types what clients read and carries the rest (`StatusReply.other`).
public protocol ControlReply: Sendable, Equatable {
    /// Decodes the daemon's reply; a reply of another shape is one line, exit 1 (a daemon of another
    /// version, not the user's input).
    init(json: JSONValue) throws(ControlError)
    var json: JSONValue { get }
}

/// Reads a reply's fields by their keys, each failure one line naming the command and the key.
struct ReplyReader<Key: RawRepresentable> where Key.RawValue == String {
    let fields: [String: JSONValue]
    let command: String

    init(_ json: JSONValue, _ command: String) throws(ControlError) {
        guard let fields = json.objectValue else { throw ControlError("the daemon's \(command) reply is not a JSON object") }
        self.fields = fields
        self.command = command
    }

    func value<T>(_ key: Key, _ read: (JSONValue) -> T?) throws(ControlError) -> T {
        guard let raw = fields[key.rawValue], let value = read(raw) else {
            throw ControlError("the daemon's \(command) reply has no valid \(key.rawValue)")
        }
        return value
    }

    func optional<T>(_ key: Key, _ read: (JSONValue) -> T?) -> T? { fields[key.rawValue].flatMap(read) }
    func int(_ key: Key) throws(ControlError) -> Int64 { try value(key) { $0.intValue.map(Int64.init) } }
    func bool(_ key: Key) throws(ControlError) -> Bool { try value(key) { $0.boolValue } }
    func string(_ key: Key) throws(ControlError) -> String { try value(key) { $0.stringValue } }
    func double(_ key: Key) throws(ControlError) -> Double { try value(key) { $0.doubleValue } }
}

/// `{Key: value}` from the keys of a reply type (`nil` values left out).
func replyObject<Key: RawRepresentable>(_ pairs: [(Key, JSONValue?)]) -> JSONValue where Key.RawValue == String {
    var fields: [String: JSONValue] = [:]
    for (key, value) in pairs { if let value { fields[key.rawValue] = value } }
    return .object(fields)
}

// MARK: - The session's API

/// `transfer-userinfo`: the transfer's id.
public struct TransferUserInfoReply: ControlReply {
    public var transferId: Int64
    enum Key: String { case transferId }
    public init(transferId: Int64) { self.transferId = transferId }
    public init(json: JSONValue) throws(ControlError) {
        transferId = try ReplyReader<Key>(json, "transfer-userinfo").int(.transferId)
    }
    public var json: JSONValue { replyObject([(Key.transferId, .integer(transferId))]) }
}

/// `transfer-complication`: the transfer's id, whether it went as complication data (`isCurrentComplicationInfo`;
/// false: the day's budget was spent, or the complication is off, and it went as a plain userInfo — its id
/// then counts among the userInfo transfers), and what is left of today's budget.
public struct TransferComplicationReply: ControlReply {
    public var transferId: Int64
    public var isCurrentComplicationInfo: Bool
    public var remainingComplicationUserInfoTransfers: Int64
    enum Key: String { case transferId, isCurrentComplicationInfo, remainingComplicationUserInfoTransfers }
    public init(transferId: Int64, isCurrentComplicationInfo: Bool, remainingComplicationUserInfoTransfers: Int64) {
        self.transferId = transferId
        self.isCurrentComplicationInfo = isCurrentComplicationInfo
        self.remainingComplicationUserInfoTransfers = remainingComplicationUserInfoTransfers
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "transfer-complication")
        transferId = try reader.int(.transferId)
        isCurrentComplicationInfo = try reader.bool(.isCurrentComplicationInfo)
        remainingComplicationUserInfoTransfers = try reader.int(.remainingComplicationUserInfoTransfers)
    }
    public var json: JSONValue {
        replyObject([
            (Key.transferId, .integer(transferId)), (.isCurrentComplicationInfo, .bool(isCurrentComplicationInfo)),
            (.remainingComplicationUserInfoTransfers, .integer(remainingComplicationUserInfoTransfers)),
        ])
    }
}

/// `transfer-file`: the transfer's id, and the file as it was queued (its size and SHA-256).
public struct TransferFileReply: ControlReply {
    public var transferId: Int64
    public var bytes: Int64
    public var sha256: String
    enum Key: String { case transferId, bytes, sha256 }
    public init(transferId: Int64, bytes: Int64, sha256: String) {
        self.transferId = transferId
        self.bytes = bytes
        self.sha256 = sha256
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "transfer-file")
        transferId = try reader.int(.transferId)
        bytes = try reader.int(.bytes)
        sha256 = try reader.string(.sha256)
    }
    public var json: JSONValue { replyObject([(Key.transferId, .integer(transferId)), (.bytes, .integer(bytes)), (.sha256, .string(sha256))]) }
}

/// `complication` (the watch): whether the app's complication is now on the active watch face.
public struct ComplicationReply: ControlReply {
    public var complicationEnabled: Bool
    enum Key: String { case complicationEnabled }
    public init(complicationEnabled: Bool) { self.complicationEnabled = complicationEnabled }
    public init(json: JSONValue) throws(ControlError) {
        complicationEnabled = try ReplyReader<Key>(json, "complication").bool(.complicationEnabled)
    }
    public var json: JSONValue { replyObject([(Key.complicationEnabled, .bool(complicationEnabled))]) }
}

/// `context-set`: the context's version.
public struct ContextSetReply: ControlReply {
    public var version: Int64
    enum Key: String { case version }
    public init(version: Int64) { self.version = version }
    public init(json: JSONValue) throws(ControlError) { version = try ReplyReader<Key>(json, "context-set").int(.version) }
    public var json: JSONValue { replyObject([(Key.version, .integer(version))]) }
}

/// `context-get`: the context this side set and the last one received, in typed JSON.
public struct ContextGetReply: ControlReply {
    public var applicationContext: JSONValue
    public var receivedApplicationContext: JSONValue
    enum Key: String { case applicationContext, receivedApplicationContext }
    public init(applicationContext: JSONValue, receivedApplicationContext: JSONValue) {
        self.applicationContext = applicationContext
        self.receivedApplicationContext = receivedApplicationContext
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "context-get")
        applicationContext = try reader.value(.applicationContext) { $0.objectValue == nil ? nil : $0 }
        receivedApplicationContext = try reader.value(.receivedApplicationContext) { $0.objectValue == nil ? nil : $0 }
    }
    public var json: JSONValue {
        replyObject([(Key.applicationContext, applicationContext), (.receivedApplicationContext, receivedApplicationContext)])
    }
}

/// `message`: the counterpart's reply (typed JSON), or — sent without a reply handler — that it was delivered.
public struct MessageReply: ControlReply {
    public enum Outcome: Sendable, Equatable {
        case reply(JSONValue)
        case delivered
    }
    public var outcome: Outcome
    enum Key: String { case reply, delivered }
    public init(_ outcome: Outcome) { self.outcome = outcome }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "message")
        if let reply = reader.optional(.reply, { $0.objectValue == nil ? nil : $0 }) {
            outcome = .reply(reply)
        } else {
            guard try reader.bool(.delivered) else { throw ControlError("the daemon's message reply says it was not delivered") }
            outcome = .delivered
        }
    }
    public var json: JSONValue {
        switch outcome {
        case let .reply(reply): replyObject([(Key.reply, reply)])
        case .delivered: replyObject([(Key.delivered, .bool(true))])
        }
    }
}

/// `message-data`: the reply's bytes (base64), or that the data message was delivered (no reply expected).
public struct MessageDataReply: ControlReply {
    public enum Outcome: Sendable, Equatable {
        case reply([UInt8])
        case delivered
    }
    public var outcome: Outcome
    enum Key: String { case reply, delivered }
    public init(_ outcome: Outcome) { self.outcome = outcome }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "message-data")
        if let reply = reader.optional(.reply, { $0.stringValue.flatMap(Base64.decode) }) {
            outcome = .reply(reply)
        } else {
            guard try reader.bool(.delivered) else { throw ControlError("the daemon's message-data reply says it was not delivered") }
            outcome = .delivered
        }
    }
    public var json: JSONValue {
        switch outcome {
        case let .reply(bytes): replyObject([(Key.reply, .string(Base64.encode(bytes)))])
        case .delivered: replyObject([(Key.delivered, .bool(true))])
        }
    }
}

/// `cancel`: the transfer cancelled — now, or already before (`alreadyCancelled`: it will not be
/// delivered either way, so a second cancel is not a failure).
public struct CancelReply: ControlReply {
    public var cancelled: Int64
    public var alreadyCancelled: Bool
    enum Key: String { case cancelled, alreadyCancelled }
    public init(cancelled: Int64, alreadyCancelled: Bool = false) {
        self.cancelled = cancelled
        self.alreadyCancelled = alreadyCancelled
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "cancel")
        cancelled = try reader.int(.cancelled)
        alreadyCancelled = reader.optional(.alreadyCancelled) { $0.boolValue } ?? false
    }
    public var json: JSONValue { replyObject([(Key.cancelled, .integer(cancelled)), (.alreadyCancelled, .bool(alreadyCancelled))]) }
}

/// `quarantine-remove`: how many were removed.
public struct QuarantineRemoveReply: ControlReply {
    public var removed: Int64
    enum Key: String { case removed }
    public init(removed: Int64) { self.removed = removed }
    public init(json: JSONValue) throws(ControlError) { removed = try ReplyReader<Key>(json, "quarantine-remove").int(.removed) }
    public var json: JSONValue { replyObject([(Key.removed, .integer(removed))]) }
}
