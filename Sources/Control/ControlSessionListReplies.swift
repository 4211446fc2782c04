import JSONText

// MARK: - The session's queues, listed (`transfers`, `quarantine`)

/// `transfers`: the outstanding userInfo transfers — keys and size, not the payload (a flight's samples
/// would fill the screen) — and those finished lately.
package struct TransfersReply: ControlReply {
    package struct Outstanding: Codable, Sendable, Equatable {
        package var transferId: Int64
        package var isTransferring: Bool
        package var onTheWire: Bool
        package var keys: [String]
        package var bytes: Int64

        package init(transferId: Int64, isTransferring: Bool, onTheWire: Bool, keys: [String], bytes: Int64) {
            self.transferId = transferId
            self.isTransferring = isTransferring
            self.onTheWire = onTheWire
            self.keys = keys
            self.bytes = bytes
        }
    }

    package struct Finished: Codable, Sendable, Equatable {
        package var transferId: Int64
        package var replayed: Bool
        /// `7017 transferTimedOut`; null when it went well.
        @NullIfNil package var error: String?

        package init(transferId: Int64, replayed: Bool, error: String?) {
            self.transferId = transferId
            self.replayed = replayed
            self.error = error
        }
    }

    package var outstandingUserInfoTransfers: Int64
    package var outstanding: [Outstanding]
    package var finishedSinceStart: Int64
    package var recentlyFinished: [Finished]

    package init(outstandingUserInfoTransfers: Int64, outstanding: [Outstanding], finishedSinceStart: Int64, recentlyFinished: [Finished]) {
        self.outstandingUserInfoTransfers = outstandingUserInfoTransfers
        self.outstanding = outstanding
        self.finishedSinceStart = finishedSinceStart
        self.recentlyFinished = recentlyFinished
    }
}

/// `quarantine`: the transfers received that could not be taken, and how many messages came.
package struct QuarantineReply: ControlReply {
    /// One kept transfer: `userInfo` when its bytes decode, else `payloadBase64`.
    package struct Transfer: Codable, Sendable, Equatable {
        package var id: Int64
        package var transferId: Int64
        package var peer: String
        package var reason: String
        /// ISO 8601.
        package var quarantinedAt: String
        package var bytes: Int64
        package var userInfo: [String: JSONValue]?
        package var payloadBase64: String?

        package init(
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

    package var quarantined: Int64
    package var receivedMessages: Int64
    package var transfers: [Transfer]

    package init(quarantined: Int64, receivedMessages: Int64, transfers: [Transfer]) {
        self.quarantined = quarantined
        self.receivedMessages = receivedMessages
        self.transfers = transfers
    }
}
