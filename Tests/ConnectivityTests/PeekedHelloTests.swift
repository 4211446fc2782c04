import Connectivity
import Testing

/// phone-os's peek at a watch's first bytes (`PeekedHello`), cut by the link's own frame decoder.
@Suite struct PeekedHelloTests {
    static let watch: Handshake = {
        var hello = Handshake(role: .watch, deviceID: "W1", pairingID: "P1", appVersion: "1.4", resumeSeq: 7)
        hello.pendingTransfers = 3
        return hello
    }()

    func peek(_ bytes: some Collection<UInt8>) -> PeekedHello {
        Array(bytes).withUnsafeBytes { PeekedHello($0) }
    }

    @Test func aHelloIsIncompleteUntilItsLastByteThenReadWithItsLength() {
        let frame = Frame(.hello, Self.watch.encoded).encoded
        for cut in 0..<frame.count {
            #expect(peek(frame.prefix(cut)) == .incomplete, "cut at \(cut)")
        }
        #expect(peek(frame) == .hello(Self.watch, frameLength: frame.count))
        // What the watch sends after its hello is not the OS's business: the length stays the hello's.
        #expect(peek(frame + Frame(.userInfo, [1, 2, 3]).encoded) == .hello(Self.watch, frameLength: frame.count))
    }

    @Test func anotherFrameTypeIsRefusedFromItsHeaderAlone() {
        let header = Array(Frame(.userInfo, Array(repeating: 0, count: 1000)).encoded.prefix(6))
        #expect(peek(header) == .refused("the first frame is not a hello (userInfo)"))
    }

    @Test func aBadHeaderIsRefusedAsSoonAsItShows() {
        #expect(peek([0, 0, 0, 1]) == .refused("the first frame is not a hello (frame length 1 is shorter than its header)"))
        let tooLong = UInt32(PeekedHello.maximumLength + 1)
        #expect(
            peek([UInt8(tooLong >> 24), UInt8(truncatingIfNeeded: tooLong >> 16), UInt8(truncatingIfNeeded: tooLong >> 8), UInt8(truncatingIfNeeded: tooLong)])
                == .refused("the first frame is not a hello (frame of 61441 bytes exceeds the 61440-byte limit)"))
        #expect(peek([0, 0, 0, 2, 9]) == .refused("the first frame is not a hello (protocol version 9 is not supported (this side speaks 1))"))
        #expect(peek([0, 0, 0, 2, 1, 0xEE]) == .refused("the first frame is not a hello (unknown frame type 0xee)"))
    }

    @Test func aHelloThatIsNotAHandshakeIsRefused() {
        #expect(peek(Frame(.hello, [0xFF]).encoded) == .refused("the hello could not be read"))
    }
}
