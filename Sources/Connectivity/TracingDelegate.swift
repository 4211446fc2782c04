import Glibc
import PropertyLists

/// Stands between the session and the app's delegate: forwards every call unchanged and records it in a
/// `DelegateTrace` first (`runway … events`). The app sees exactly what it would see without it.
///
/// It must implement every method of `SessionDelegate`: one it lacks would fall to the protocol's empty
/// default and never reach the app (a new delegate method belongs here too, and in `DelegateEvent`).
///
/// The session holds its delegate weakly: whoever installs this keeps it (and it keeps the app's delegate).
package final class TracingDelegate: SessionDelegate {
    package let inner: SessionDelegate
    package let trace: DelegateTrace
    /// The keys of the last received userInfo, and their encoding: every flight has the same keys, so
    /// the receive path compares bytes instead of making strings per transfer.
    private var cachedKeyBytes: [[UInt8]] = []
    private var cachedKeys: [String] = []
    /// The transfers delivered since the last commit or rollback (for `didCommitReceivedTransfers`).
    private var batchFirst: Int64?
    private var batchLast: Int64 = 0
    private var batchCount = 0

    package init(_ inner: SessionDelegate, trace: DelegateTrace) {
        self.inner = inner
        self.trace = trace
    }

    package func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
        trace.record(.activationDidComplete(state: state, error: error.map { "\($0)" }))
        inner.session(session, activationDidCompleteWith: state, error: error)
    }

    package func sessionDidBecomeInactive(_ session: Session) {
        trace.record(.didBecomeInactive)
        inner.sessionDidBecomeInactive(session)
    }

    package func sessionDidDeactivate(_ session: Session) {
        trace.record(.didDeactivate)
        inner.sessionDidDeactivate(session)
    }

    // MARK: - Receiving

    package func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome? {
        guard let outcome = inner.session(session, didReceiveEncodedUserInfo: bytes, transfer: transfer) else { return nil }
        noteReceived(transfer, keys: keys(ofEncoded: bytes), bytes: bytes.count, outcome: outcome)
        return outcome
    }

    package func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        let outcome = inner.session(session, didReceiveUserInfo: userInfo, transfer: transfer)
        noteReceived(transfer, keys: userInfo.keys.sorted(), bytes: PropertyListCodec.encode(userInfo).count, outcome: outcome)
        return outcome
    }

    private func noteReceived(_ transfer: ReceivedTransfer, keys: [String], bytes: Int, outcome: ReceiveOutcome) {
        let seq = transfer.seq
        trace.record(.didReceiveUserInfo(seq: seq, keys: keys, bytes: bytes, outcome: outcome, complication: transfer.lane == .complication))
        // What the commit will cover: taken, or quarantined (the cursor moves past both).
        switch outcome {
        case .accepted, .rejected: break
        case .notNow, .failed, .insufficientSpace: return
        }
        if batchFirst == nil { batchFirst = seq }
        batchLast = seq
        batchCount += 1
    }

    package func sessionWillReceiveTransfers(_ session: Session) { inner.sessionWillReceiveTransfers(session) }

    package func sessionWillCommitReceivedTransfers(_ session: Session) throws { try inner.sessionWillCommitReceivedTransfers(session) }

    package func sessionDidCommitReceivedTransfers(_ session: Session) {
        trace.record(.didCommitReceivedTransfers(first: batchFirst ?? 0, last: batchFirst == nil ? 0 : batchLast, count: batchCount))
        resetBatch()
        inner.sessionDidCommitReceivedTransfers(session)
    }

    package func session(_ session: Session, didRollBackReceivedTransfers error: Error) {
        trace.record(.didRollBackReceivedTransfers(error: "\(error)"))
        resetBatch()
        inner.session(session, didRollBackReceivedTransfers: error)
    }

    private func resetBatch() {
        batchFirst = nil
        batchCount = 0
    }

    /// The keys of an encoded dictionary, sorted as encoded; the cached list when they are the same.
    /// On the receive path of every flight, so it only steps over the values (the app's fast path has
    /// just checked the whole encoding) and compares each key in place with the cached one: no array or
    /// string is made unless the keys changed.
    private func keys(ofEncoded bytes: UnsafeRawBufferPointer) -> [String] {
        let cached = cachedKeyBytes
        var fresh: [[UInt8]]?
        do {
            var reader = ByteReader(bytes)
            guard try reader.readUInt8() == PropertyListCodec.Tag.dictionary.rawValue else { throw DecodeError.invalid("not a dictionary") }
            let count = Int(try reader.readUInt32())
            guard count <= reader.remaining else { throw DecodeError.invalid("count beyond the bytes") }
            if count != cached.count { fresh = [] }
            for index in 0..<count {
                let key = try reader.readBytes(Int(try reader.readUInt32()))
                if fresh == nil, !cached[index].withUnsafeBytes({ $0.count == key.count && memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }) {
                    fresh = Array(cached[..<index])
                }
                fresh?.append(Array(key))
                // Scalars inline (a flight is all scalars and one data value); containers recurse.
                let tag = try reader.readUInt8()
                switch PropertyListCodec.Tag(rawValue: tag) {
                case .string?, .data?: _ = try reader.readBytes(Int(try reader.readUInt32()))
                case .integer?, .real?, .date?: _ = try reader.readBytes(8)
                case .falseValue?, .trueValue?: break
                default: try Self.skipValue(tag: tag, &reader, depth: 1)
                }
            }
        } catch {
            return (try? PropertyListCodec.decodeDictionary(bytes))?.keys.sorted() ?? []
        }
        if let fresh {
            cachedKeyBytes = fresh
            cachedKeys = fresh.map { String(decoding: $0, as: UTF8.self) }
        }
        return cachedKeys
    }

    /// Steps over one encoded value (its tag already read) without looking inside strings or data.
    private static func skipValue(tag rawTag: UInt8, _ reader: inout ByteReader, depth: Int) throws(DecodeError) {
        guard depth < PropertyListCodec.maximumDepth, let tag = PropertyListCodec.Tag(rawValue: rawTag) else {
            throw .invalid("unknown tag or too deep")
        }
        switch tag {
        case .string, .data: _ = try reader.readBytes(Int(try reader.readUInt32()))
        case .integer, .real, .date: _ = try reader.readBytes(8)
        case .falseValue, .trueValue: break
        case .array, .dictionary:
            let count = Int(try reader.readUInt32())
            guard count <= reader.remaining else { throw .invalid("count beyond the bytes") }
            for _ in 0..<count {
                if tag == .dictionary { _ = try reader.readBytes(Int(try reader.readUInt32())) }
                try skipValue(tag: try reader.readUInt8(), &reader, depth: depth + 1)
            }
        }
    }

    // MARK: - Finished transfers, contexts, messages, state

    package func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?) {
        if transfer.lane == .file {
            trace.record(.didFinishFileTransfer(seq: transfer.seq, replayed: transfer.replayed, error: error))
        } else {
            trace.record(
                .didFinishUserInfoTransfer(seq: transfer.seq, replayed: transfer.replayed, error: error, complication: transfer.lane == .complication))
        }
        inner.session(session, didFinish: transfer, error: error)
    }

    package func session(_ session: Session, didReceiveApplicationContext context: UserInfo) {
        let size = PropertyListCodec.encode(context).count
        trace.record(
            .didReceiveApplicationContext(
                keys: context.keys.sorted(), bytes: size,
                payload: size <= DelegateTrace.payloadLimit ? context : nil))
        inner.session(session, didReceiveApplicationContext: context)
    }

    package func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {
        let size = PropertyListCodec.encode(message).count
        var replied = false
        inner.session(session, didReceiveMessage: message) { answer in
            replied = true
            reply(answer)
        }
        // Recorded after the call, to say whether the app answered at once; nothing else can happen in
        // between (one thread), so the order of events is still the order of calls.
        trace.record(
            .didReceiveMessage(
                keys: message.keys.sorted(), bytes: size,
                payload: size <= DelegateTrace.payloadLimit ? message : nil, replyHandler: true, repliedAtOnce: replied))
    }

    /// A message sent without a reply handler (the sender expects no answer).
    package func session(_ session: Session, didReceiveMessage message: UserInfo) {
        let size = PropertyListCodec.encode(message).count
        trace.record(
            .didReceiveMessage(
                keys: message.keys.sorted(), bytes: size,
                payload: size <= DelegateTrace.payloadLimit ? message : nil, replyHandler: false, repliedAtOnce: false))
        inner.session(session, didReceiveMessage: message)
    }

    package func session(_ session: Session, didReceiveMessageData data: [UInt8], reply: @escaping ([UInt8]) -> Void) {
        var replied = false
        inner.session(session, didReceiveMessageData: data) { answer in
            replied = true
            reply(answer)
        }
        trace.record(.didReceiveMessageData(bytes: data.count, replyHandler: true, repliedAtOnce: replied))
    }

    package func session(_ session: Session, didReceiveMessageData data: [UInt8]) {
        trace.record(.didReceiveMessageData(bytes: data.count, replyHandler: false, repliedAtOnce: false))
        inner.session(session, didReceiveMessageData: data)
    }

    package func session(_ session: Session, didReceiveFile file: ReceivedFile) -> ReceiveOutcome {
        let outcome = inner.session(session, didReceiveFile: file)
        trace.record(.didReceiveFile(seq: file.seq, name: file.description.name, bytes: file.description.size, outcome: outcome))
        return outcome
    }

    package func session(_ session: Session, fileTransfer seq: Int64, didProgress completed: Int64, of total: Int64) {
        inner.session(session, fileTransfer: seq, didProgress: completed, of: total)
    }

    package func sessionReachabilityDidChange(_ session: Session) {
        trace.record(.reachabilityDidChange(reachable: session.isReachable))
        inner.sessionReachabilityDidChange(session)
    }

    package func sessionWatchStateDidChange(_ session: Session) {
        trace.record(.watchStateDidChange(paired: session.isPaired, watchAppInstalled: session.isWatchAppInstalled))
        inner.sessionWatchStateDidChange(session)
    }
}
