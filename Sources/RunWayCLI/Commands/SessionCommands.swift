import Connectivity
import Control
import JSONText
import Posix

/// The session's generic commands, the same on both devices: `runway {watch|phone} transfer-userinfo |
/// received | context set|get | message | transfers | cancel`.
enum SessionCLI {
    /// A data message's bytes: a file that cannot be read is a usage error (exit 2); one over `limit`
    /// is Apple's `payloadTooLarge` (7009, exit 1), found from its size before it is read.
    static func readDataFile(_ path: String, limit: Int) throws -> [UInt8] {
        if path != "-", let info = Filesystem.status(of: path), (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > limit {
            throw ControlError(WCError(.payloadTooLarge, "\(path) is \(info.st_size) bytes, more than the \(limit)-byte limit of a data message"))
        }
        let bytes: [UInt8]
        do {
            bytes = path == "-" ? try readStandardInput() : try Filesystem.readFile(path)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        guard bytes.count <= limit else {
            throw ControlError(WCError(.payloadTooLarge, "\(path) is \(bytes.count) bytes, more than the \(limit)-byte limit of a data message"))
        }
        return bytes
    }

    static func kind(of json: JSONValue) -> String {
        switch json {
        case .array: "an array"
        case .string: "a string"
        case .null: "null"
        case .bool: "a boolean"
        default: "a number"
        }
    }

    static func readStandardInput() throws(SystemError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try systemCall("read(stdin)") { chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) } }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }
}
