/// The unit of every socket in the pair — the link between the devices and the control socket of each
/// daemon — whatever the frames mean:
///
///     +----------------+---------+------+-----------------+
///     | length: UInt32 | version | type | payload ...     |
///     +----------------+---------+------+-----------------+
///
/// `length` (big-endian) counts everything after itself: version, type and payload. It is checked
/// against the decoder's limit before a byte of the body is buffered, so a lying prefix costs nothing.
/// Each protocol names its own frame types (`Kind`): the link's are in `Connectivity`, the control
/// socket's in `Control`; a type byte the protocol does not name is a framing error.
package protocol WireFrameKind: RawRepresentable, Sendable, Equatable where RawValue == UInt8 {}

package struct WireFrame<Kind: WireFrameKind>: Equatable, Sendable {
    package static var protocolVersion: UInt8 { 1 }
    /// The largest frame a link peer accepts: an application context (256 KiB) plus room to spare.
    package static var maximumLength: Int { 512 * 1024 }
    package static var headerLength: Int { 6 }

    package var type: Kind
    package var payload: [UInt8]

    @inlinable
    package init(_ type: Kind, _ payload: [UInt8] = []) {
        self.type = type
        self.payload = payload
    }

    /// The frame's bytes on the wire.
    @inlinable
    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + payload.count)
        Self.appendHeader(type: type, payloadLength: payload.count, to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    @inlinable
    package static func appendHeader(type: Kind, payloadLength: Int, to bytes: inout [UInt8]) {
        let length = UInt32(payloadLength + 2)
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
        bytes.append(protocolVersion)
        bytes.append(type.rawValue)
    }
}

/// Why a byte stream is not a valid frame sequence: the connection cannot continue after any of these.
package enum FrameError: Error, Equatable, CustomStringConvertible, Sendable {
    case tooLarge(declared: Int, limit: Int)
    case tooShort(declared: Int)
    case unsupportedVersion(UInt8)
    case unknownType(UInt8)

    package var description: String {
        switch self {
        case let .tooLarge(declared, limit): "frame of \(declared) bytes exceeds the \(limit)-byte limit"
        case let .tooShort(declared): "frame length \(declared) is shorter than its header"
        case let .unsupportedVersion(version): "protocol version \(version) is not supported (this side speaks 1)"
        case let .unknownType(type): "unknown frame type 0x\(String(type, radix: 16))"
        }
    }
}

/// Cuts frames out of a byte stream that may arrive split anywhere.
package struct WireFrameDecoder<Kind: WireFrameKind> {
    package let maximumLength: Int

    @inlinable
    package init(maximumLength: Int = WireFrame<Kind>.maximumLength) {
        self.maximumLength = maximumLength
    }

    /// The header of the frame at the start of `bytes`: its type and its whole length on the wire, nil
    /// until the six header bytes are there. Throws as soon as the header is known to be bad: the length
    /// is checked before anything else is awaited, the version and type as soon as they arrive. A reader
    /// that must judge a frame before all of it is there (phone-os, peeking at a watch's `hello`) asks
    /// this rather than reading the header itself.
    @inlinable
    package func header(_ bytes: UnsafeRawBufferPointer) throws(FrameError) -> (type: Kind, total: Int)? {
        guard bytes.count >= 4 else { return nil }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard declared >= 2 else { throw .tooShort(declared: declared) }
        guard declared <= maximumLength else { throw .tooLarge(declared: declared, limit: maximumLength) }
        if bytes.count >= 5, bytes[4] != WireFrame<Kind>.protocolVersion { throw .unsupportedVersion(bytes[4]) }
        guard bytes.count >= 6 else { return nil }
        guard let type = Kind(rawValue: bytes[5]) else { throw .unknownType(bytes[5]) }
        return (type, 4 + declared)
    }

    /// The next whole frame at the start of `bytes` and how many bytes it took, nil if the frame is
    /// not complete yet. Throws as `header` does, before any body bytes are awaited.
    @inlinable
    package func decode(_ bytes: UnsafeRawBufferPointer) throws(FrameError) -> (frame: WireFrame<Kind>, consumed: Int)? {
        guard let (type, total) = try header(bytes), bytes.count >= total else { return nil }
        let payload = Array(UnsafeRawBufferPointer(rebasing: bytes[6..<total]))
        return (WireFrame(type, payload), total)
    }

    /// Decodes every whole frame in `buffer`, consuming them; a partial frame stays for next time.
    /// Frames before a bad header are returned along with the error that stopped decoding.
    @inlinable
    package func decodeAll(from buffer: some ByteBufferView) -> (frames: [WireFrame<Kind>], error: FrameError?) {
        var frames: [WireFrame<Kind>] = []
        var failure: FrameError?
        buffer.withReadable { raw in
            var offset = 0
            do throws(FrameError) {
                while let (frame, consumed) = try decode(UnsafeRawBufferPointer(rebasing: raw[offset...])) {
                    frames.append(frame)
                    offset += consumed
                }
            } catch {
                failure = error
            }
            return offset
        }
        return (frames, failure)
    }
}

/// The view of a byte buffer the decoder needs: read the unread bytes, say how many were used.
package protocol ByteBufferView {
    func withReadable(_ body: (UnsafeRawBufferPointer) -> Int)
}

extension ByteBuffer: ByteBufferView {
    package func withReadable(_ body: (UnsafeRawBufferPointer) -> Int) {
        let used = withReadableBytes(body)
        consume(used)
    }
}
