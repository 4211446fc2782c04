import JSONText

// MARK: - The session's queues, listed (`transfers`, `quarantine`)

/// `transfers`: the outstanding userInfo transfers — keys and size, not the payload (a flight's samples
/// would fill the screen) — and those finished lately.
public struct TransfersReply: ControlReply {
    public struct Outstanding: Codable, Sendable, Equatable {
        public var transferId: Int64
        public var isTransferring: Bool
        public var onTheWire: Bool
        public var keys: [String]
        public var bytes: Int64

        public init(transferId: Int64, isTransferring: Bool, onTheWire: Bool, keys: [String], bytes: Int64) {
            self.transferId = transferId
            self.isTransferring = isTransferring
            self.onTheWire = onTheWire
            self.keys = keys
            self.bytes = bytes
        }
    }

    public struct Finished: Codable, Sendable, Equatable {
        public var transferId: Int64
        public var replayed: Bool
        /// `7017 transferTimedOut`; null when it went well.
        @NullIfNil public var error: String?

        public init(transferId: Int64, replayed: Bool, error: String?) {
            self.transferId = transferId
            self.replayed = replayed
            self.error = error
        }
    }

    public var outstandingUserInfoTransfers: Int64
    public var outstanding: [Outstanding]
    public var finishedSinceStart: Int64
    public var recentlyFinished: [Finished]

    public init(outstandingUserInfoTransfers: Int64, outstanding: [Outstanding], finishedSinceStart: Int64, recentlyFinished: [Finished]) {
        self.outstandingUserInfoTransfers = outstandingUserInfoTransfers
        self.outstanding = outstanding
        self.finishedSinceStart = finishedSinceStart
        self.recentlyFinished = recentlyFinished
    }
}

/// `quarantine`: the transfers received that could not be taken, and how many messages came.
public struct QuarantineReply: ControlReply {
    /// One kept transfer: `userInfo` when its bytes decode, else `payloadBase64`.
    public struct Transfer: Codable, Sendable, Equatable {
        public var id: Int64
        public var transferId: Int64
        public var peer: String
        public var reason: String
        /// ISO 8601.
        public var quarantinedAt: String
        public var bytes: Int64
        public var userInfo: [String: JSONValue]?
        public var payloadBase64: String?

        public init(
            id: Int64, transferId: Int64, peer: String, reason: String, quarantinedAt: String, bytes: Int64, userInfo: [String: JSONValue]?,
            payloadBase64: String?
        ) {
            self.id = id
            self.transferId = transferId
            self.peer = peer
            self.reason = reason
            self.quarantinedAt = quarantinedAt
            self.bytes = bytes
            self.userInfo = userInfo
            self.payloadBase64 = payloadBase64
        }
    }

    public var quarantined: Int64
    public var receivedMessages: Int64
    public var transfers: [Transfer]

    public init(quarantined: Int64, receivedMessages: Int64, transfers: [Transfer]) {
        self.quarantined = quarantined
        self.receivedMessages = receivedMessages
        self.transfers = transfers
    }
}
