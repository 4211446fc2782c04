import Control
import Digest
import Connectivity
import JSONText
import Posix
import PropertyLists

/// The control commands both devices answer the same way, whatever their app: the session's generic
/// API, as the `runway` CLI exposes it (`transfer-userinfo`, `context set|get`, `message`, `transfers`,
/// `cancel`, `quarantine`). What the app did with what it received (`received`) is the app's to say.
struct SessionCommands {
    let session: Session
    let ledger: SessionLedger
    let logger: Logger
    let mailbox: LoopMailbox

    /// Registers these commands (the catalogue marks which need an activated session).
    func register(on router: ControlRouter) {
        router.on(ControlCommands.TransferUserInfo.self) { args in
            TransferUserInfoReply(transferId: try session.transferUserInfo(try Self.userInfo(args.payload)).seq)
        }
        if session.role == .phone {
            router.on(ControlCommands.TransferComplication.self) { args in
                let transfer = try session.transferCurrentComplicationUserInfo(try Self.userInfo(args.payload))
                return TransferComplicationReply(
                    transferId: transfer.seq, isCurrentComplicationInfo: transfer.lane == .complication,
                    remainingComplicationUserInfoTransfers: Int64(try session.remainingComplicationUserInfoTransfers()))
            }
        }
        router.on(ControlCommands.TransferFile.self) { args, later in try transferFile(args, later) }
        router.on(ControlCommands.ContextSet.self) { args in
            ContextSetReply(version: try session.updateApplicationContext(try Self.userInfo(args.payload)))
        }
        router.on(ControlCommands.ContextGet.self) { _ in
            ContextGetReply(
                applicationContext: session.applicationContext.mapValues(\.json),
                receivedApplicationContext: session.receivedApplicationContext.mapValues(\.json))
        }
        router.on(ControlCommands.Message.self) { args, later in
            let replyExpected = args.replyExpected
            session.sendMessage(try Self.userInfo(args.payload), replyExpected: replyExpected, timeoutMilliseconds: args.timeoutMs.map(UInt64.init)) {
                result in
                switch result {
                case .success where !replyExpected: later.reply(MessageReply(.delivered))
                case let .success(reply): later.reply(MessageReply(.reply(reply.mapValues(\.json))))
                case let .failure(error): later.reply(error: ControlError(error))
                }
            }
        }
        router.on(ControlCommands.MessageData.self) { args, later in
            let replyExpected = args.replyExpected
            // The router checked the base64.
            let data = Base64.decode(args.data) ?? []
            session.sendMessageData(data, replyExpected: replyExpected, timeoutMilliseconds: args.timeoutMs.map(UInt64.init)) { result in
                switch result {
                case .success where !replyExpected: later.reply(MessageDataReply(.delivered))
                case let .success(reply): later.reply(MessageDataReply(.reply(reply)))
                case let .failure(error): later.reply(error: ControlError(error))
                }
            }
        }
        router.on(ControlCommands.Transfers.self) { args in
            let limit = args.limit
            let outstanding = try session.outstandingUserInfoTransfers(limit: limit)
            return TransfersReply(
                outstandingUserInfoTransfers: Int64(try session.outstandingUserInfoTransferCount()),
                outstanding: outstanding.map { item in
                    // Keys and size, not the payload: a flight's samples would fill the screen.
                    TransfersReply.Outstanding(
                        transferId: item.transfer.seq, isTransferring: item.isTransferring, onTheWire: item.onTheWire,
                        keys: item.transfer.userInfo.keys.sorted(), bytes: Int64(PropertyListCodec.encode(item.transfer.userInfo).count))
                },
                finishedSinceStart: Int64(ledger.finishedCount),
                recentlyFinished: ledger.recentlyFinished.last.suffix(limit).map { finished in
                    TransfersReply.Finished(
                        transferId: finished.seq, replayed: finished.replayed, error: finished.error.map { "\($0.code.rawValue) \($0.name)" })
                })
        }
        router.on(ControlCommands.Cancel.self) { args in
            let id = args.transferId
            switch try session.cancelUserInfoTransferTelling(seq: Int64(id)) {
            case .cancelled: return CancelReply(cancelled: Int64(id))
            case .alreadyCancelled: return CancelReply(cancelled: Int64(id), alreadyCancelled: true)
            case .delivered:
                throw ControlError("transfer \(id) was already delivered (the counterpart acknowledged it); nothing to cancel", reason: "delivered")
            case .onTheWire:
                throw ControlError(
                    "transfer \(id) is on its way (sent, not yet acknowledged) and can no longer be cancelled; if the link drops first, it is queued again",
                    reason: "onTheWire")
            case .unknown:
                throw ControlError("no transfer \(id) on this device: it never made one with that id", exitStatus: 2, reason: "unknown")
            }
        }
        router.on(ControlCommands.Quarantine.self) { args in
            QuarantineReply(
                quarantined: Int64(try session.quarantinedCount()), receivedMessages: Int64(session.receivedMessageCount),
                transfers: try session.quarantined(limit: args.limit).map(\.reply))
        }
        router.on(ControlCommands.QuarantineRemove.self) { args in
            let id = args.id
            guard id != nil || args.all else {
                throw ControlError.invalid("say which quarantined transfer to remove (an id), or all")
            }
            let removed = try session.removeQuarantined(id: id.map(Int64.init))
            if let id, removed == 0 { throw ControlError("no quarantined transfer \(id); nothing removed") }
            return QuarantineRemoveReply(removed: Int64(removed))
        }
    }

    /// A request's `payload` (a JSON object in well-formed typed JSON: the router checked) as a
    /// property-list dictionary; a `null` inside is 7010.
    static func userInfo(_ payload: JSONValue) throws -> UserInfo {
        try UserInfo(userInfoJSON: payload)
    }

    /// `transfer-file`: checked here, copied into the queue on a thread of its own (a large file does
    /// not hold the loop), queued back on the loop; the reply waits for all of it.
    private func transferFile(
        _ args: ControlCommands.TransferFile, _ later: ControlReplyLater<ControlCommands.TransferFile>
    ) throws {
        let path = args.path
        let metadata = try args.metadata.map { try UserInfo(userInfoJSON: $0) }
        try session.checkFileTransfer(metadata: metadata)
        nonisolated(unsafe) let session = self.session
        nonisolated(unsafe) let later = later
        let mailbox = self.mailbox
        let copy = {
            let staged = Result<FileRecord, WCError>(catching: { () throws(WCError) -> FileRecord in try session.stageFile(path, metadata: metadata) })
            let outcome = staged
            mailbox.post {
                do {
                    let info = try session.transferFile(staged: try outcome.get())
                    later.reply(TransferFileReply(transferId: info.seq, bytes: info.record.size, sha256: info.record.sha256.hexString))
                } catch let error as WCError {
                    later.reply(error: ControlError(error))
                } catch {
                    later.reply(error: ControlError("\(error)"))
                }
            }
        }
        // A thread of the process's own (no Foundation here: the OS processes link this module).
        do { try DedicatedThread(copy).detach() } catch { throw ControlError("could not start copying \(path): \(error)") }
    }

    /// The part of `status` that comes from the session (the device adds its own).
    func status() throws -> StatusReply {
        let outstanding = Int64(try session.outstandingUserInfoTransferCount())
        var fields: [String: JSONValue] = [
            "deviceId": .string(session.deviceID),
            "failedReceiveCommits": .integer(Int64(session.failedCommits)),
            "quarantined": .integer(Int64(try session.quarantinedCount())),
            "receivedMessages": .integer(Int64(session.receivedMessageCount)),
            "receivedMessagesWithoutReply": .integer(Int64(ledger.messagesWithoutReply)),
            "receivedMessageData": .integer(Int64(ledger.messageDataReceived)),
        ]
        fields["outstandingFileTransfers"] = .integer(Int64(try session.outstandingFileTransferCount()))
        // Content like any other (issue 50): the context sent and not yet acknowledged, and what the
        // counterpart said it has for this side (`hasContentPending`).
        fields["applicationContextPending"] = .bool(session.sentApplicationContextPending)
        fields["hasContentPending"] = .bool(session.hasContentPending)
        if let sending = session.fileBeingSent {
            fields["fileSending"] = .object(["transferId": .integer(sending.seq), "bytes": .integer(sending.size), "durableBytes": .integer(sending.durable)])
        }
        if let receiving = session.fileBeingReceived {
            fields["fileReceiving"] = .object([
                "transferId": .integer(receiving.seq), "bytes": .integer(receiving.size), "durableBytes": .integer(receiving.durable),
            ])
        }
        if let limit = session.fileSpaceLimit { fields["inboxSpaceLimit"] = .integer(limit) }
        if session.role == .phone {
            fields["complicationEnabled"] = .bool(session.counterpartComplicationEnabled)
            fields["remainingComplicationUserInfoTransfers"] = .integer(Int64(try session.remainingComplicationUserInfoTransfers()))
            fields["outstandingComplicationTransfers"] = .integer(Int64(try session.outstandingComplicationTransferCount()))
        } else {
            fields["complicationEnabled"] = .bool(session.localComplicationEnabled)
            fields["companionAppInstalled"] = .bool(session.counterpartAppInstalled)
            fields["iOSDeviceNeedsUnlockAfterReboot"] = .bool(session.counterpartNeedsUnlockAfterReboot)
        }
        fields["hasContentPending"] = .bool(session.hasContentPending)
        if let pairing = session.pairing {
            fields["pairingId"] = .string(pairing.pairingID)
            fields["counterpartDeviceId"] = .string(pairing.counterpartID(of: session.role))
            fields["receivedTransfers"] = .integer(try SessionStore.receiveCursor(session.database, peer: pairing.counterpartID(of: session.role)))
        }
        if let version = session.counterpartAppVersion { fields["counterpartAppVersion"] = .string(version) }
        if session.duplicatedDeliveries > 0 { fields["duplicatedDeliveries"] = .integer(Int64(session.duplicatedDeliveries)) }
        if session.failNextCount > 0 { fields["failNext"] = .integer(Int64(session.failNextCount)) }
        if let last = ledger.lastMessageWithoutReply { fields["lastMessageWithoutReply"] = last.json }
        if let bytes = ledger.lastMessageDataBytes { fields["lastMessageDataBytes"] = .integer(Int64(bytes)) }
        fields["systemTiming"] = session.systemDeferralSummary.json
        if session.messagesAwaitingLinkCount > 0 { fields["messagesAwaitingLink"] = .integer(Int64(session.messagesAwaitingLinkCount)) }
        return StatusReply(
            role: session.role.rawValue, pid: Int64(getpid()), activationState: session.activationState.rawValue, paired: session.isPaired,
            linked: session.isLinked, reachable: session.isReachable, watchAppInstalled: session.isWatchAppInstalled,
            outstandingUserInfoTransfers: outstanding,
            outbox: StatusReply.Outbox(
                depth: outstanding, inFlight: Int64(session.transfersInFlight), lastSentTransfer: session.lastSentSeq,
                lastAcknowledgedTransfer: session.lastAckedSeq, window: Int64(session.configuration.windowTransfers)),
            other: fields)
    }
}

extension QuarantinedTransfer {
    /// As `quarantine` lists it: `userInfo` only when the bytes decode (else `payloadBase64`).
    var reply: QuarantineReply.Transfer {
        let userInfo = try? PropertyListCodec.decodeDictionary(payload)
        return QuarantineReply.Transfer(
            id: id, transferId: seq, peer: peerDeviceID, reason: reason, quarantinedAt: Timestamp.iso8601(quarantinedAt), bytes: Int64(payload.count),
            userInfo: userInfo?.mapValues(\.json), payloadBase64: userInfo == nil ? Base64.encode(payload) : nil)
    }
}
