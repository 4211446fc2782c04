import Control
import Posix
import Testing
import PropertyLists
@testable import Connectivity

@Suite struct FrameCodecTests {
    static let frames: [Frame] = [
        Frame(.hello, Array("hello".utf8)),
        Frame(.ack, SequencedFrame.frame(.ack, number: 42).dropFirst(6).map { $0 }),
        Frame(.userInfo, (0..<3000).map { UInt8($0 % 256) }),
        Frame(.contextAck),
        Frame(.appState, [0xFF]),
    ]

    static var stream: [UInt8] { frames.flatMap(\.encoded) }

    /// Feeds `bytes` to a decoder in chunks of `size` and collects the frames.
    func decodeInChunks(_ bytes: [UInt8], size: Int) throws -> [Frame] {
        let buffer = ByteBuffer()
        let decoder = FrameDecoder()
        var frames: [Frame] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + size)
            buffer.append(Array(bytes[offset..<end]))
            offset = end
            let (decoded, error) = decoder.decodeAll(from: buffer)
            if let error { throw error }
            frames.append(contentsOf: decoded)
        }
        #expect(buffer.isEmpty)
        return frames
    }

    @Test func decodesAtEveryChunkSize() throws {
        let bytes = Self.stream
        for size in [1, 2, 3, 5, 6, 7, 13, 64, 1000, 3005, bytes.count] {
            #expect(try decodeInChunks(bytes, size: size) == Self.frames, "chunk size \(size)")
        }
    }

    @Test func decodesWhenSplitAtEveryOffset() throws {
        let bytes = Self.stream
        for split in 0...bytes.count {
            let buffer = ByteBuffer()
            let decoder = FrameDecoder()
            buffer.append(Array(bytes[..<split]))
            var frames = decoder.decodeAll(from: buffer).frames
            buffer.append(Array(bytes[split...]))
            frames += decoder.decodeAll(from: buffer).frames
            #expect(frames == Self.frames, "split at \(split)")
        }
    }

    @Test func aTruncatedFrameIsNeverReturned() throws {
        let one = Frame(.userInfo, Array(repeating: 9, count: 100)).encoded
        for cut in 0..<one.count {
            let result = try one.prefix(cut).withUnsafeBytes { try FrameDecoder().decode($0) }
            #expect(result == nil, "cut at \(cut)")
        }
    }

    @Test func anOversizedLengthFailsBeforeTheBodyArrives() {
        // A 4 GiB prefix followed by nothing: rejected from the four length bytes alone.
        let header: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: FrameError.tooLarge(declared: 0xFFFF_FFFF, limit: Frame.maximumLength)) {
            try header.withUnsafeBytes { try FrameDecoder().decode($0) }
        }
        let justOver = UInt32(Frame.maximumLength + 1)
        let bytes: [UInt8] = [UInt8(justOver >> 24), UInt8(justOver >> 16 & 0xFF), UInt8(justOver >> 8 & 0xFF), UInt8(justOver & 0xFF)]
        #expect(throws: FrameError.self) { try bytes.withUnsafeBytes { try FrameDecoder().decode($0) } }
    }

    @Test func badHeadersAreRejected() {
        #expect(throws: FrameError.tooShort(declared: 1)) { try ([0, 0, 0, 1] as [UInt8]).withUnsafeBytes { try FrameDecoder().decode($0) } }
        #expect(throws: FrameError.unsupportedVersion(9)) { try ([0, 0, 0, 2, 9] as [UInt8]).withUnsafeBytes { try FrameDecoder().decode($0) } }
        #expect(throws: FrameError.unknownType(0x7E)) { try ([0, 0, 0, 2, 1, 0x7E] as [UInt8]).withUnsafeBytes { try FrameDecoder().decode($0) } }
    }

    @Test func framesBeforeABadOneAreKept() {
        let buffer = ByteBuffer()
        buffer.append(Frame(.ack, [1, 2, 3, 4, 5, 6, 7, 8]).encoded + [0, 0, 0, 2, 1, 0x7E])
        let (frames, error) = FrameDecoder().decodeAll(from: buffer)
        #expect(frames.count == 1)
        #expect(error == .unknownType(0x7E))
    }

    @Test func sequencedFramesRoundTrip() throws {
        let bytes = SequencedFrame.frame(.userInfo, number: 1 << 40 | 7, body: [1, 2, 3])
        let frame = try #require(try bytes.withUnsafeBytes { try FrameDecoder().decode($0) }).frame
        let (number, body) = try SequencedFrame.split(frame.payload)
        #expect(number == 1 << 40 | 7)
        #expect(Array(body) == [1, 2, 3])
        #expect(throws: DecodeError.self) { try SequencedFrame.split([1, 2, 3]) }
    }
}

/// The link and the control socket share the layout but not the types: a frame of one is an unknown
/// type to the other, so a CLI frame written to the link (or a link frame to a control socket) is refused
/// at its header.
@Suite struct FrameKindsAreApartTests {
    @Test func aControlFrameIsUnknownOnTheLinkAndALinkFrameOnTheControlSocket() {
        let control = ControlFrame(.request, Array(#"{"command":"status"}"#.utf8)).encoded
        #expect(throws: FrameError.unknownType(ControlFrameType.request.rawValue)) {
            try control.withUnsafeBytes { try FrameDecoder().decode($0) }
        }
        let link = Frame(.hello, [1]).encoded
        #expect(throws: FrameError.unknownType(FrameType.hello.rawValue)) {
            try link.withUnsafeBytes { try ControlFrameDecoder().decode($0) }
        }
        #expect(Set(FrameType.allCases.map(\.rawValue)).isDisjoint(with: ControlFrameType.allCases.map(\.rawValue)))
    }
}
