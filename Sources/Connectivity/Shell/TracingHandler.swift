import Posix
import PropertyLists

/// Stands between the session and the next handler (the system's ledger, then the app): records each
/// callback in a `DelegateTrace` (`runway … events`) and forwards it unchanged, so the app sees exactly
/// what it would see without it.
///
/// How each callback is traced is said beside the callback, in `SessionCallback.traced(in:)`: a switch
/// over every case, without a `default`, so a new case does not compile until it says how it is traced
/// (or that it is not). Forwarding needs nothing per case.
///
/// The session holds its handler weakly: whoever installs this keeps it (and it keeps the next handler).
package final class TracingHandler: SessionHandler {
    package let next: any SessionHandler
    package let trace: DelegateTrace
    /// The keys of the last received userInfo, and their encoding: every flight has the same keys, so
    /// the receive path compares bytes instead of making strings per transfer.
    private var cachedKeyBytes: [[UInt8]] = []
    private var cachedKeys: [String] = []
    /// The transfers delivered since the last commit or rollback (for `didCommitReceivedTransfers`).
    private var batchFirst: Int64?
    private var batchLast: Int64 = 0
    private var batchCount = 0

    package init(_ next: any SessionHandler, trace: DelegateTrace) {
        self.next = next
        self.trace = trace
    }

    package func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback.traced(in: session) {
        case let .record(call): trace.record(call)
        case .none: break
        case .aroundTheCall: return try traceAroundTheCall(callback, from: session)
        }
        return try next.handle(callback, from: session)
    }

    /// The callbacks whose record needs the app's answer, or what came before in the batch
    /// (`CallbackTrace.aroundTheCall`); any other is handed on as it is.
    private func traceAroundTheCall(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case let .didReceiveEncodedUserInfo(bytes, transfer):
            guard let outcome = try next.handle(callback, from: session) else { return nil }
            noteReceived(transfer, keys: keys(ofEncoded: bytes), bytes: bytes.count, outcome: outcome)
            return outcome
        case let .didReceiveUserInfo(userInfo, transfer):
            let outcome = try next.handle(callback, from: session)
            noteReceived(transfer, keys: userInfo.keys.sorted(), bytes: PropertyListCodec.encode(userInfo).count, outcome: outcome ?? .notNow)
            return outcome
        case let .didReceiveFile(file):
            let outcome = try next.handle(callback, from: session)
            trace.record(.didReceiveFile(seq: file.seq, name: file.description.name, bytes: file.description.size, outcome: outcome ?? .notNow))
            return outcome
        case .didCommitReceivedTransfers:
            trace.record(.didCommitReceivedTransfers(first: batchFirst ?? 0, last: batchFirst == nil ? 0 : batchLast, count: batchCount))
            resetBatch()
        case let .didRollBackReceivedTransfers(error):
            trace.record(.didRollBackReceivedTransfers(error: "\(error)"))
            resetBatch()
        case let .didReceiveMessage(message, reply?):
            // Recorded after the call, to say whether the app answered at once; nothing else can happen
            // in between (one thread), so the order of events is still the order of calls.
            var replied = false
            defer { trace.record(SessionCallback.messageRecord(message, replyHandler: true, repliedAtOnce: replied)) }
            return try next.handle(
                .didReceiveMessage(
                    message,
                    reply: { answer in
                        replied = true
                        reply(answer)
                    }), from: session)
        case let .didReceiveMessageData(data, reply?):
            var replied = false
            defer { trace.record(.didReceiveMessageData(bytes: data.count, replyHandler: true, repliedAtOnce: replied)) }
            return try next.handle(
                .didReceiveMessageData(
                    data,
                    reply: { answer in
                        replied = true
                        reply(answer)
                    }), from: session)
        default: break
        }
        return try next.handle(callback, from: session)
    }

    // MARK: - Receiving

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
}
