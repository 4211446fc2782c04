import Connectivity
import JSONText
import Posix

extension DelegateEvent {
    /// `{"index":3,"at":"…","call":"didReceiveUserInfo","seq":5,"keys":[…],"bytes":812,"outcome":"accepted"}`;
    /// payloads in typed JSON (`{"$date":…}`, `{"$data":…}`).
    package var json: JSONValue {
        var fields: [String: JSONValue] = [
            "index": .integer(index), "at": .string(Timestamp.iso8601(at, milliseconds: true)), "call": .string(name),
        ]
        func keys(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
        switch call {
        case let .activationDidComplete(state, error):
            fields["state"] = .string(state.rawValue)
            fields["error"] = error.map(JSONValue.string) ?? .null
        case .didBecomeInactive, .didDeactivate:
            break
        case let .didReceiveUserInfo(seq, list, bytes, outcome, complication):
            fields["seq"] = .integer(seq)
            if complication { fields["complication"] = .bool(true) }
            fields["keys"] = keys(list)
            fields["bytes"] = .integer(Int64(bytes))
            switch outcome {
            case .accepted: fields["outcome"] = .string("accepted")
            case .notNow: fields["outcome"] = .string("notNow")
            case .failed: fields["outcome"] = .string("failed")
            case .insufficientSpace: fields["outcome"] = .string("insufficientSpace")
            case let .rejected(why):
                fields["outcome"] = .string("rejected")
                fields["reason"] = .string(why)
            }
        case let .didCommitReceivedTransfers(first, last, count):
            fields["firstSeq"] = .integer(first)
            fields["lastSeq"] = .integer(last)
            fields["count"] = .integer(Int64(count))
        case let .didRollBackReceivedTransfers(error):
            fields["error"] = .string(error)
        case let .didFinishUserInfoTransfer(seq, replayed, error, complication):
            fields["seq"] = .integer(seq)
            if complication { fields["complication"] = .bool(true) }
            fields["replayed"] = .bool(replayed)
            fields["error"] =
                error.map { .object(["code": .integer(Int64($0.code.rawValue)), "name": .string($0.name), "message": .string($0.message)]) } ?? .null
        case let .didReceiveApplicationContext(list, bytes, payload):
            fields["keys"] = keys(list)
            fields["bytes"] = .integer(Int64(bytes))
            if let payload { fields["context"] = payload.json }
        case let .didReceiveMessage(list, bytes, payload, replyHandler, repliedAtOnce):
            fields["keys"] = keys(list)
            fields["bytes"] = .integer(Int64(bytes))
            fields["replyHandler"] = .bool(replyHandler)
            if replyHandler { fields["repliedAtOnce"] = .bool(repliedAtOnce) }
            if let payload { fields["message"] = payload.json }
        case let .didReceiveFile(seq, name, bytes, outcome):
            fields["seq"] = .integer(seq)
            fields["name"] = .string(name)
            fields["bytes"] = .integer(bytes)
            fields["outcome"] = .string(Self.word(outcome))
        case let .didFinishFileTransfer(seq, replayed, error):
            fields["seq"] = .integer(seq)
            fields["replayed"] = .bool(replayed)
            fields["error"] =
                error.map { .object(["code": .integer(Int64($0.code.rawValue)), "name": .string($0.name), "message": .string($0.message)]) } ?? .null
        case let .didReceiveMessageData(bytes, replyHandler, repliedAtOnce):
            fields["bytes"] = .integer(Int64(bytes))
            fields["replyHandler"] = .bool(replyHandler)
            if replyHandler { fields["repliedAtOnce"] = .bool(repliedAtOnce) }
        case let .reachabilityDidChange(reachable):
            fields["reachable"] = .bool(reachable)
        case let .watchStateDidChange(paired, installed):
            fields["paired"] = .bool(paired)
            fields["watchAppInstalled"] = .bool(installed)
        case let .appLog(type, subsystem, category, message):
            fields["type"] = .string(type)
            fields["subsystem"] = .string(subsystem)
            fields["category"] = .string(category)
            fields["message"] = .string(message)
        case let .system(_, kind):
            fields["kind"] = .string(kind)
        case let .systemDeferred(lane, seq, delayMs, reason):
            fields["lane"] = .string(lane)
            fields["seq"] = .integer(seq)
            fields["delayMs"] = .integer(delayMs)
            fields["reason"] = .string(reason)
        }
        return .object(fields)
    }

    static func word(_ outcome: ReceiveOutcome) -> String {
        switch outcome {
        case .accepted: "accepted"
        case .notNow: "notNow"
        case .failed: "failed"
        case .insufficientSpace: "insufficientSpace"
        case .rejected: "rejected"
        }
    }
}

extension SystemDeferralSummary {
    /// `status`'s `systemTiming`: `{"system":"realistic:42","deferred":3,"byReason":{"background-transfer":3},
    /// "waiting":1,"nextDueInMs":2400}` (`nextDueInMs` only while one waits).
    package var json: JSONValue {
        var fields: [String: JSONValue] = [
            "system": .string(system), "deferred": .integer(Int64(deferred)), "byReason": .object(byReason.mapValues { .integer(Int64($0)) }),
            "waiting": .integer(Int64(waiting)),
        ]
        if let next = nextDueInMilliseconds { fields["nextDueInMs"] = .integer(Int64(min(next, UInt64(Int64.max)))) }
        return .object(fields)
    }
}
