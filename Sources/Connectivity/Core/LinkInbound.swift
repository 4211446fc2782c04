/// The receive side's dispatch as a pure function: the frames of one read in, what the session must do
/// out, in order. `Session.receive` applies the actions; every rule of the dispatch — consecutive
/// transfers form one batch (one transaction, one acknowledgement), acknowledgements are applied once
/// per read at its end, a malformed or unexpected frame stops the read — is a unit test
/// (`LinkInboundTests`) with no session, socket or database.
enum InboundAction: Equatable {
    /// Consecutive transfers of one lane (userInfo, or complication userInfo), in order: committed
    /// together, then acknowledged.
    case userInfoBatch([Transfer], lane: TransferLane)
    /// The counterpart has everything of `lane` up to here (the highest acknowledgement of the read).
    case acknowledge(upTo: Int64, lane: TransferLane)
    /// The counterpart reported an error and is closing: stop.
    case peerError(WCError)
    case appState([UInt8])
    case applicationContext([UInt8])
    case contextAck(version: Int64)
    case workout([UInt8])
    /// A message (a dictionary or data), a reply, an error for a message, a message without a reply, or its delivery.
    case message(FrameType, id: Int64, body: [UInt8])
    /// A frame of the file lane: `fileBegin`, `fileChunk`, `fileCancel` (to the receiver), `fileResume`,
    /// `fileProgress`, `fileAck`, `fileError` (to the sender); `body` is what follows the seq.
    case file(FrameType, seq: Int64, body: ArraySlice<UInt8>)
    /// The frame breaks the protocol: close the link with this reason, and stop.
    case violation(String)

    struct Transfer: Equatable {
        let seq: Int64
        let body: ArraySlice<UInt8>
    }

    /// Whether nothing after this action is done (the link is closing).
    var endsTheRead: Bool {
        switch self {
        case .peerError, .violation: true
        default: false
        }
    }
}

enum LinkInbound {
    /// The actions the frames of one read ask for. A violation or a peer's error ends the list; transfers
    /// still gathered when a violation comes are dropped (never acknowledged, so the sender resends them),
    /// while those before a peer's error are committed first, and the acknowledgements before it applied:
    /// a phone switching watches acknowledges what it delivered while inactive, then sends its error and
    /// closes — a watch that reads all three at once (busy while the phone closed) must still let go of
    /// what the phone made durable, or it sends it all again.
    static func actions(for frames: [Frame]) -> [InboundAction] {
        var actions: [InboundAction] = []
        var batch: [InboundAction.Transfer] = []
        var batchLane = TransferLane.userInfo
        var highestAcks = Lanes<Int64?>(repeating: nil)
        func flush() {
            if !batch.isEmpty { actions.append(.userInfoBatch(batch, lane: batchLane)); batch.removeAll() }
        }
        // All acknowledgements of one read are applied at once: one outbox delete, not one per frame.
        func acknowledge() {
            for lane in TransferLane.sequenced {
                if let upTo = highestAcks[lane] { actions.append(.acknowledge(upTo: upTo, lane: lane)) }
            }
        }
        func sequenced(_ frame: Frame, _ what: String) -> (Int64, ArraySlice<UInt8>)? {
            guard let split = try? SequencedFrame.split(frame.payload) else {
                actions.append(.violation("\(frame.type) frame shorter than its \(what)"))
                return nil
            }
            return split
        }
        for frame in frames {
            // A sequenced lane's transfer or acknowledgement: its lane is the row with that frame.
            if let lane = TransferLane.carrying(frame.type) {
                guard let (seq, body) = sequenced(frame, "sequence number") else { return actions }
                if lane != batchLane { flush() }
                batchLane = lane
                batch.append(.init(seq: seq, body: body))
                continue
            }
            if let lane = TransferLane.acknowledged(by: frame.type) {
                guard let (seq, _) = sequenced(frame, "sequence number") else { return actions }
                highestAcks[lane] = max(highestAcks[lane] ?? seq, seq)
                continue
            }
            switch frame.type {
            case .error:
                flush()
                acknowledge()
                actions.append(.peerError((try? ErrorFrame.decode(frame.payload)) ?? WCError(.genericError, "undecodable error frame")))
                return actions
            case .appState:
                flush()
                actions.append(.appState(frame.payload))
            case .applicationContext:
                flush()
                actions.append(.applicationContext(frame.payload))
            case .contextAck:
                guard let (version, _) = sequenced(frame, "version") else { return actions }
                actions.append(.contextAck(version: version))
            case .workout:
                flush()
                actions.append(.workout(frame.payload))
            case .fileBegin, .fileResume, .fileChunk, .fileProgress, .fileAck, .fileError, .fileCancel:
                flush()
                guard let (seq, body) = sequenced(frame, "file transfer id") else { return actions }
                actions.append(.file(frame.type, seq: seq, body: body))
            case .message, .messageReply, .messageError, .messageNoReply, .messageDelivered, .messageData, .messageDataNoReply, .messageDataReply:
                flush()
                guard let (id, body) = sequenced(frame, "message id") else { return actions }
                actions.append(.message(frame.type, id: id, body: Array(body)))
            default:
                actions.append(.violation("unexpected \(frame.type) frame on an established link"))
                return actions
            }
        }
        flush()
        acknowledge()
        return actions
    }
}
