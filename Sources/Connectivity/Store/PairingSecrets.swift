import Posix

/// The secret two paired homes share: 32 random bytes that `runway pair` writes into both, and that each
/// connection of the link proves it holds (`LinkProof`), so that only the pair speaks on the link — not
/// a replayed `hello`, not a process that merely knows the device ids (`docs/hardening.md`, "Only the
/// pair speaks on the link").
package struct PairingSecret: Equatable, Sendable {
    package static let length = 32

    package let bytes: [UInt8]

    /// `bytes` as a secret: exactly `length` of them.
    package init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// A new secret from the system's random source (`getrandom`).
    package static func generate() -> PairingSecret {
        var generator = SystemRandomNumberGenerator()
        return PairingSecret(bytes: (0..<length).map { _ in generator.next() as UInt8 })!
    }

    /// The file's text: the bytes in lowercase hex, one line.
    package var fileText: [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] } + [0x0A]
    }

    /// Why a file is not a secret.
    package enum ParseError: Error, Equatable, CustomStringConvertible {
        case length(Int)
        case notHex(at: Int)

        package var description: String {
            switch self {
            case let .length(count): "\(count) bytes where a secret is 64 hex digits and a newline"
            case let .notHex(at): "byte \(at) is not a hex digit"
            }
        }
    }

    /// The secret a file's bytes hold: exactly 64 hex digits, then at most one newline. Total: any
    /// bytes give a secret or a `ParseError` (fuzzed: `Fuzz/ParserFuzzer.swift`, `secret`).
    package init(parsing text: [UInt8]) throws(ParseError) {
        var digits = text[...]
        if digits.last == 0x0A { digits = digits.dropLast() }
        guard digits.count == Self.length * 2 else { throw .length(text.count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.length)
        var high: UInt8 = 0
        for (offset, character) in digits.enumerated() {
            let value: UInt8
            switch character {
            case 0x30...0x39: value = character - 0x30
            case 0x61...0x66: value = character - 0x61 + 10
            case 0x41...0x46: value = character - 0x41 + 10
            default: throw .notHex(at: offset)
            }
            if offset % 2 == 0 { high = value } else { bytes.append(high << 4 | value) }
        }
        self.bytes = bytes
    }
}

/// A home's pairing secrets: `HOME/pairing-secrets/PAIRING-ID`, one file per pairing (a phone keeps one
/// per paired watch), mode 0600 in a directory of mode 0700, as the stores are. Written by `runway
/// pair`, removed by `runway unpair`; read by the session at each handshake, and by watch-os.
package struct PairingSecrets: Sendable {
    package static let directoryName = "pairing-secrets"
    /// A pairing id that names a file: letters, digits, `-`, `_` and `.` (not first), at most 64.
    package static let idLimit = 64

    package let directory: String

    package init(home: String) {
        directory = home + "/" + Self.directoryName
    }

    /// The file of `pairingID`'s secret; nil for an id that cannot name a file (a store edited by hand).
    package func path(for pairingID: String) -> String? {
        let bytes = Array(pairingID.utf8)
        guard (1...Self.idLimit).contains(bytes.count), bytes.first != UInt8(ascii: "."),
            bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E })
        else { return nil }
        return directory + "/" + pairingID
    }

    /// Why there is no usable secret.
    package enum ReadError: Error, Equatable, CustomStringConvertible {
        /// No file: a home paired by a RunWay before the secret, or unpaired since.
        case missing(path: String)
        case unreadable(path: String, reason: String)
        case damaged(path: String, PairingSecret.ParseError)
        case badPairingID(String)

        package var description: String {
            switch self {
            case let .missing(path): "no pairing secret (\(path) is missing: the homes were paired by an earlier RunWay, or unpaired)"
            case let .unreadable(path, reason): "the pairing secret \(path) cannot be read (\(reason))"
            case let .damaged(path, problem): "the pairing secret \(path) is damaged (\(problem))"
            case let .badPairingID(id): "the pairing id \(OneLine.quote(id)) cannot name a secret file"
            }
        }
    }

    /// The secret of `pairingID`, read afresh (`runway pair` may have written a new one since).
    package func read(pairingID: String) throws(ReadError) -> PairingSecret {
        guard let path = path(for: pairingID) else { throw .badPairingID(pairingID) }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW)
        } catch {
            if error.errno == ENOENT { throw .missing(path: path) }
            throw .unreadable(path: path, reason: error.description)
        }
        // At most one byte more than a secret's text: a longer file is damaged, never read whole.
        var buffer = [UInt8](repeating: 0, count: Self.fileLimit + 1)
        var count = 0
        while count < buffer.count {
            let start = count
            let read = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try file.readBlocking(into: raw.baseAddress! + start, count: raw.count - start, "read(\(path))") }
            }
            let n: Int
            switch read {
            case let .success(bytes): n = bytes
            case let .failure(error): throw .unreadable(path: path, reason: error.description)
            }
            if n == 0 { break }
            count += n
        }
        do {
            return try PairingSecret(parsing: Array(buffer[0..<count]))
        } catch {
            throw .damaged(path: path, error)
        }
    }

    /// A secret's file is at most this long (64 hex digits and a newline).
    static let fileLimit = PairingSecret.length * 2 + 1

    /// Writes `secret` as `pairingID`'s, atomically (temporary file, fsync, rename), mode 0600 in a
    /// directory of mode 0700.
    package func write(_ secret: PairingSecret, pairingID: String) throws {
        guard let path = path(for: pairingID) else { throw ReadError.badPairingID(pairingID) }
        try Filesystem.makeDirectory(directory, mode: 0o700)
        try Filesystem.writeAtomically(secret.fileText, to: path, mode: 0o600)
    }

    /// Removes every secret but those of `keep` (`runway pair --replace`, a watch paired with another
    /// phone, `runway unpair`: the pairings left behind can no longer prove themselves).
    @discardableResult
    package func removeAll(except keep: Set<String> = []) throws -> [String] {
        guard Filesystem.kind(of: directory) == .directory else { return [] }
        var removed: [String] = []
        for name in try Filesystem.entries(of: directory) where !keep.contains(name) {
            try Filesystem.removeDurably(directory + "/" + name)
            removed.append(name)
        }
        return removed
    }
}
