import JSONText
import Testing
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
        trace.record(.didReceiveMessage(keys: ["at"], bytes: 20, payload: ["at": .date(0)], repliedAtOnce: false))
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
