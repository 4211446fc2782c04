import Control
import JSONText
import Testing
import PropertyLists
@testable import Connectivity

/// The trace's ring: bounded, oldest first, numbered without gaps; and each event's JSON.
@Suite struct DelegateTraceTests {
    @Test func theRingKeepsTheMostRecentInOrder() {
        let trace = DelegateTrace(capacity: 4)
        var heard: [Int64] = []
        trace.onEvent = { heard.append($0.index) }
        for seq in 1...10 { trace.record(.didFinishUserInfoTransfer(seq: Int64(seq), replayed: false, error: nil)) }
        #expect(heard == Array(1...10))
        #expect(trace.total == 10)
        #expect(trace.recent(100).map(\.index) == [7, 8, 9, 10])
        #expect(trace.recent(2).map(\.index) == [9, 10])
        #expect(trace.recent(0).isEmpty)
    }

    @Test func eventsAreWrittenAsOneFlatObjectEach() {
        let trace = DelegateTrace()
        trace.record(.didReceiveUserInfo(seq: 5, keys: ["distanceKm", "id"], bytes: 812, outcome: .rejected("distanceKm out of range")))
        trace.record(.didFinishUserInfoTransfer(seq: 6, replayed: true, error: WCError(.transferTimedOut, "late")))
        trace.record(.didReceiveMessage(keys: ["at"], bytes: 20, payload: ["at": .date(0)], replyHandler: true, repliedAtOnce: false))
        let json = trace.recent(3).map(\.json)
        #expect(json[0]["call"] == .string("didReceiveUserInfo"))
        #expect(json[0]["seq"] == .integer(5))
        #expect(json[0]["keys"] == .array([.string("distanceKm"), .string("id")]))
        #expect(json[0]["outcome"] == .string("rejected"))
        #expect(json[0]["reason"] == .string("distanceKm out of range"))
        #expect(json[1]["error"]?["code"] == .integer(7017))
        #expect(json[1]["replayed"] == .bool(true))
        #expect(json[2]["message"] == .object(["at": .object(["$date": .string("1970-01-01T00:00:00.000Z")])]))
        #expect(json.map { $0["index"] } == [.integer(1), .integer(2), .integer(3)])
    }
}

/// An app with a fast path: takes every transfer from its encoding (as the phone app takes flights).
final class FastPathDelegate: SessionHandler {
    var taken = 0
    func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case .didReceiveEncodedUserInfo:
            taken += 1
            return .accepted
        case .didReceiveUserInfo, .didReceiveFile: return .accepted
        default: return nil
        }
    }
}

@Suite struct TracingHandlerTests {
    /// The keys read from the encoding, on the fast path, follow each transfer even when the cached set
    /// changes part-way (a longer, shorter, different or empty set, nested containers stepped over).
    @Test func theFastPathTracesEachTransfersOwnKeys() throws {
        let pair = try PairHarness()
        let app = FastPathDelegate()
        let tracer = TracingHandler(app, trace: DelegateTrace())
        pair.phone.handler = tracer
        try pair.activateBoth()
        try pair.connect()
        let payloads: [UserInfo] = [
            ["a": .integer(1), "b": .string("x")],
            ["a": .integer(2), "b": .string("yy")],
            ["a": .integer(3), "c": .data([1, 2, 3])],
            ["a": .real(1), "b": .bool(true), "z": .array([.integer(1), .dictionary(["y": .data([9])])])],
            [:],
            ["a": .date(0), "b\u{0}c": .string("")],
            ["a": .integer(1), "b": .string("x")],
        ]
        for payload in payloads { _ = try pair.watch.transferUserInfo(payload) }
        try pair.drive()
        #expect(app.taken == payloads.count)
        let received = tracer.trace.recent(100).compactMap { event -> [String]? in
            if case let .didReceiveUserInfo(_, keys, _, outcome, _) = event.call, outcome == .accepted { return keys }
            return nil
        }
        #expect(received == payloads.map { $0.keys.sorted() })
        let sizes = tracer.trace.recent(100).compactMap { event -> Int? in
            if case let .didReceiveUserInfo(_, _, bytes, _, _) = event.call { return bytes }
            return nil
        }
        #expect(sizes == payloads.map { PropertyListCodec.encode($0).count })
        // And one commit event covering them.
        let commits = tracer.trace.recent(100).compactMap { event -> Int? in
            if case let .didCommitReceivedTransfers(_, _, count) = event.call { return count }
            return nil
        }
        #expect(commits.reduce(0, +) == payloads.count)
    }
}
