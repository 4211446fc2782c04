import JSONText

/// A command's reply as a Swift type, declared once as a `Codable` struct: its properties are the reply's
/// keys. The daemon encodes it (`connection.reply(reply)`), the client decodes it (`client.send(command)`
/// returns the command's `Reply`), both through `JSONValueEncoder`/`JSONValueDecoder`. A field that
/// differs from what `Codable` does says so where it is declared (`@NullIfNil`, `@FalseIfMissing`,
/// `@OtherFields`: `JSONFieldWrappers.swift`). Four commands answer plain JSON (`JSONReply`), each for a
/// reason (`ControlCommandSpec.replyTypes`: `logbook`, `flight`, `alerts`, `events`); a partly free-form
/// reply types what clients read and carries the rest (`StatusReply.other`).
package protocol ControlReply: ControlRecord {
    /// Decodes the daemon's reply to `command`; a reply of another shape is one line, exit 1.
    init(json: JSONValue, replyTo command: String) throws(ControlError)
}

/// A value the control socket carries, declared once as a `Codable` struct: a reply, or an event the
/// daemon sends on a connection that follows (`UpdateAlert`; `NotificationItem`, a delivery).
package protocol ControlRecord: Codable, Sendable, Equatable {}

extension ControlRecord {
    /// The value as the daemon sends it.
    package var json: JSONValue {
        do {
            return try JSONValueEncoder().encode(self)
        } catch {
            // Only a conformance written by hand can throw, and only by a mistake in it.
            preconditionFailure("\(Self.self) cannot be encoded: \(error)")
        }
    }
}

extension ControlReply {
    /// Decodes the daemon's reply to `command`; a reply of another shape is one line, exit 1 (a daemon of
    /// another version, not the user's input).
    package init(json: JSONValue, replyTo command: String) throws(ControlError) {
        switch json {
        case .object: break
        case .array where Self.self is any ControlListReply.Type: break
        default: throw ControlError("the daemon's \(command) reply is not a JSON \(Self.self is any ControlListReply.Type ? "array" : "object")")
        }
        do throws(JSONDecodingFailure) {
            self = try JSONValueDecoder().decode(Self.self, from: json)
        } catch {
            throw ControlError("the daemon's \(command) reply " + (error.path.isEmpty ? error.problem : "has no valid \(error.path)"))
        }
    }
}

/// A reply that is a JSON array, not an object (`received`: the items themselves, as the daemons always
/// answered it): its type encodes and decodes a single value.
package protocol ControlListReply: ControlReply {}

/// The reply of a command that answers plain JSON, as it came (`logbook`, `flight`, `alerts`, `events`:
/// `ControlCommandSpec.replyTypes` says why each has no type of its own).
package struct JSONReply: ControlReply {
    package var value: JSONValue

    package init(_ value: JSONValue) { self.value = value }

    package init(json: JSONValue, replyTo command: String) { value = json }

    package init(from decoder: any Decoder) throws { value = try JSONValue(from: decoder) }
    package func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

// MARK: - The session's API

/// `transfer-userinfo`: the transfer's id.
package struct TransferUserInfoReply: ControlReply {
    package var transferId: Int64
    package init(transferId: Int64) { self.transferId = transferId }
}

/// `transfer-complication`: the transfer's id, whether it went as complication data (`isCurrentComplicationInfo`;
/// false: the day's budget was spent, or the complication is off, and it went as a plain userInfo — its id
/// then counts among the userInfo transfers), and what is left of today's budget.
package struct TransferComplicationReply: ControlReply {
    package var transferId: Int64
    package var isCurrentComplicationInfo: Bool
    package var remainingComplicationUserInfoTransfers: Int64
    package init(transferId: Int64, isCurrentComplicationInfo: Bool, remainingComplicationUserInfoTransfers: Int64) {
        self.transferId = transferId
        self.isCurrentComplicationInfo = isCurrentComplicationInfo
        self.remainingComplicationUserInfoTransfers = remainingComplicationUserInfoTransfers
    }
}

/// `transfer-file`: the transfer's id, and the file as it was queued (its size and SHA-256).
package struct TransferFileReply: ControlReply {
    package var transferId: Int64
    package var bytes: Int64
    package var sha256: String
    package init(transferId: Int64, bytes: Int64, sha256: String) {
        self.transferId = transferId
        self.bytes = bytes
        self.sha256 = sha256
    }
}

/// `complication` (the watch): whether the app's complication is now on the active watch face.
package struct ComplicationReply: ControlReply {
    package var complicationEnabled: Bool
    package init(complicationEnabled: Bool) { self.complicationEnabled = complicationEnabled }
}

/// `context-set`: the context's version.
package struct ContextSetReply: ControlReply {
    package var version: Int64
    package init(version: Int64) { self.version = version }
}

/// `context-get`: the context this side set and the last one received, in typed JSON (objects).
package struct ContextGetReply: ControlReply {
    package var applicationContext: [String: JSONValue]
    package var receivedApplicationContext: [String: JSONValue]
    package init(applicationContext: [String: JSONValue], receivedApplicationContext: [String: JSONValue]) {
        self.applicationContext = applicationContext
        self.receivedApplicationContext = receivedApplicationContext
    }
}

/// `message`: the counterpart's reply (typed JSON), or — sent without a reply handler — that it was
/// delivered: `{"reply": {…}}` or `{"delivered": true}`, one or the other.
package struct MessageReply: ControlReply {
    package enum Outcome: Sendable, Equatable {
        case reply([String: JSONValue])
        case delivered
    }
    package var outcome: Outcome
    package init(_ outcome: Outcome) { self.outcome = outcome }

    package init(from decoder: any Decoder) throws {
        let wire = try MessageOutcome<[String: JSONValue]>(from: decoder)
        outcome = wire.reply.map(Outcome.reply) ?? .delivered
    }

    package func encode(to encoder: any Encoder) throws {
        switch outcome {
        case let .reply(reply): try MessageOutcome(reply: reply).encode(to: encoder)
        case .delivered: try MessageOutcome<[String: JSONValue]>(delivered: true).encode(to: encoder)
        }
    }
}

/// `message-data`: the reply's bytes (base64), or that the data message was delivered (no reply expected).
package struct MessageDataReply: ControlReply {
    package enum Outcome: Sendable, Equatable {
        case reply([UInt8])
        case delivered
    }
    package var outcome: Outcome
    package init(_ outcome: Outcome) { self.outcome = outcome }

    package init(from decoder: any Decoder) throws {
        let wire = try MessageOutcome<String>(from: decoder)
        guard let text = wire.reply else {
            outcome = .delivered
            return
        }
        guard let bytes = Base64.decode(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "has a reply that is not base64"))
        }
        outcome = .reply(bytes)
    }

    package func encode(to encoder: any Encoder) throws {
        switch outcome {
        case let .reply(bytes): try MessageOutcome(reply: Base64.encode(bytes)).encode(to: encoder)
        case .delivered: try MessageOutcome<String>(delivered: true).encode(to: encoder)
        }
    }
}

/// What `message` and `message-data` answer on the wire: the reply, or `delivered: true`.
struct MessageOutcome<Reply: Codable & Sendable & Equatable>: Codable, Equatable {
    var reply: Reply?
    var delivered: Bool?

    init(reply: Reply? = nil, delivered: Bool? = nil) {
        self.reply = reply
        self.delivered = delivered
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reply = try container.decodeIfPresent(Reply.self, forKey: .reply)
        delivered = try container.decodeIfPresent(Bool.self, forKey: .delivered)
        guard reply != nil || delivered == true else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "says it was not delivered"))
        }
    }
}

/// `cancel`: the transfer cancelled — now, or already before (`alreadyCancelled`: it will not be
/// delivered either way, so a second cancel is not a failure).
package struct CancelReply: ControlReply {
    package var cancelled: Int64
    @FalseIfMissing package var alreadyCancelled: Bool
    package init(cancelled: Int64, alreadyCancelled: Bool = false) {
        self.cancelled = cancelled
        self.alreadyCancelled = alreadyCancelled
    }
}

/// `quarantine-remove`: how many were removed.
package struct QuarantineRemoveReply: ControlReply {
    package var removed: Int64
    package init(removed: Int64) { self.removed = removed }
}
