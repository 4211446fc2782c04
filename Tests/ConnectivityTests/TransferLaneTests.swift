import PropertyLists
import Testing

@testable import Connectivity

/// A lane is one row (`LaneSpec`) and its state is keyed by lane (`Lanes`): the rows must not collide,
/// and the handshake's keyed cursors must be on the wire exactly the fields they were before.
@Suite struct TransferLaneTests {
    @Test func theRowsDoNotCollide() {
        let specs = TransferLane.allCases.map(\.spec)
        #expect(Set(specs.map(\.frame)).count == specs.count, "one frame per lane")
        #expect(Set(specs.map(\.ack)).count == specs.count, "one acknowledgement per lane")
        #expect(Set(specs.map(\.resumeKey)).count == specs.count, "one handshake field per lane")
        #expect(Set(specs.map(\.tables.outbox)).count == specs.count, "one outbox table per lane")
        #expect(Set(TransferLane.inOrder) == Set(TransferLane.allCases), "every lane has its turn")
        #expect(TransferLane.sequenced == [.complication, .userInfo], "complications go first; files are their own kind")
        for lane in TransferLane.sequenced {
            #expect(TransferLane.carrying(lane.spec.frame) == lane)
            #expect(TransferLane.acknowledged(by: lane.spec.ack) == lane)
        }
        #expect(TransferLane.carrying(.fileBegin) == nil && TransferLane.acknowledged(by: .fileAck) == nil, "files keep their own receiver")
        #expect(TransferLane.beginning(with: .fileBegin) == .file && TransferLane.beginning(with: .message) == nil)
    }

    @Test func lanesAreReadAndChangedInPlace() {
        var lanes = Lanes(repeating: 0)
        lanes[.complication] += 5
        lanes[.file] = 2
        #expect(lanes == Lanes(userInfo: 0, complication: 5, file: 2))
        #expect(Lanes { $0.rawValue } == Lanes(userInfo: "userInfo", complication: "complication", file: "file"))
    }

    /// A phone and a watch of different builds talk: the keyed cursors are the same bytes as the fields
    /// the handshake had one per lane (`resumeSeq`, `complicationResumeSeq`, `fileResumeSeq`).
    @Test func theHandshakesWireIsUnchanged() throws {
        var hello = Handshake(role: .watch, deviceID: "W", pairingID: "P", appVersion: "1.4", resumeSeq: 7, appInstalled: true, appActive: false)
        hello.resume[.complication] = 3
        let before: UserInfo = [
            "role": .string("watch"), "deviceID": .string("W"), "pairingID": .string("P"), "appVersion": .string("1.4"),
            "resumeSeq": .integer(7), "appInstalled": .bool(true), "appActive": .bool(false), "complicationResumeSeq": .integer(3),
        ]
        #expect(hello.encoded == PropertyListCodec.encode(before), "a zero cursor is left out, as it was")
        hello.resume[.file] = 9
        var withFile = before
        withFile["fileResumeSeq"] = .integer(9)
        #expect(hello.encoded == PropertyListCodec.encode(withFile))
        let decoded = try Handshake(decoding: PropertyListCodec.encode(withFile))
        #expect(decoded.resume == Lanes(userInfo: 7, complication: 3, file: 9) && decoded == hello)
        var older = before
        older["complicationResumeSeq"] = nil
        #expect(try Handshake(decoding: PropertyListCodec.encode(older)).resume == Lanes(userInfo: 7, complication: 0, file: 0), "an older hello")
        older["resumeSeq"] = nil
        #expect(throws: DecodeError.self) { try Handshake(decoding: PropertyListCodec.encode(older)) }
    }
}
