// The benchmark's baseline: the least a program can do to move records from one process to another
// over a Unix socket into SQLite durably — WAL, synchronous=FULL, group commit (the receiver reads
// everything that has arrived, up to 4 MiB, commits it in one transaction, then acknowledges the last
// record with one cumulative ack) — with no session layer, no outbox, no app. The sender keeps its whole
// window in flight (4096 records by default, as the pair's) and never waits for an ack while the window
// has room, so the receiver's batches are as large as the disk lets them grow. Its store has 16 KiB pages,
// as the phone app's (with SQLite's 4 KiB it reached 81,000–108,000 records/s, with 16 KiB 126,000–153,000
// in the same minutes: a quarter of the log's writes). Our drain rate is reported as a ratio of this one,
// measured alternately in the same run.
//
//   bench-baseline --count N --size BYTES --dir DIR [--window W]
//
// Prints one line: `records=N bytes=B seconds=S rate=R` (rate in records per second).
import CSQLite
import Glibc

func fail(_ message: String) -> Never {
    let text = Array("bench-baseline: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
        let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if n < 0 { if errno == EINTR { continue }; fail("send: \(errno)") }
        offset += n
    }
}

func readSome(_ fd: Int32, _ buffer: inout [UInt8], _ filled: inout Int) -> Bool {
    if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
    if n < 0 { if errno == EINTR { return true }; fail("read: \(errno)") }
    if n == 0 { return false }
    filled += n
    return true
}

/// After a blocking read: whatever else has already arrived, without waiting, up to `limit` bytes.
func readAvailable(_ fd: Int32, _ buffer: inout [UInt8], _ filled: inout Int, limit: Int) {
    while filled < limit {
        if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, $0.count - filled, Int32(MSG_DONTWAIT)) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        filled += n
    }
}

func exec(_ db: OpaquePointer, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fail("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
}

/// The receiver: reads length-prefixed records, inserts every whole record it has in one transaction,
/// commits (fsync), then acknowledges the last sequence number with 8 bytes.
func receive(_ fd: Int32, databasePath: String, count: Int) {
    var db: OpaquePointer?
    guard sqlite3_open(databasePath, &db) == SQLITE_OK, let db else { fail("open \(databasePath)") }
    exec(db, "PRAGMA page_size=16384")
    exec(db, "PRAGMA journal_mode=WAL")
    exec(db, "PRAGMA synchronous=FULL")
    exec(db, "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO records (seq, payload) VALUES (?, ?)", -1, &insert, nil)
    var buffer = [UInt8](repeating: 0, count: 4 << 20)
    var filled = 0
    var received = 0
    while received < count {
        guard readSome(fd, &buffer, &filled) else { break }
        readAvailable(fd, &buffer, &filled, limit: 4 << 20)
        var offset = 0
        var batch = 0
        exec(db, "BEGIN")
        while filled - offset >= 4 {
            let length = Int(buffer[offset]) << 24 | Int(buffer[offset + 1]) << 16 | Int(buffer[offset + 2]) << 8 | Int(buffer[offset + 3])
            guard filled - offset >= 4 + length else { break }
            received += 1
            sqlite3_bind_int64(insert, 1, Int64(received))
            buffer.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(insert, 2, raw.baseAddress! + offset + 4, Int32(length), nil)
                _ = sqlite3_step(insert)
            }
            sqlite3_reset(insert)
            offset += 4 + length
            batch += 1
        }
        exec(db, "COMMIT")
        if offset > 0 {
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + offset, byteCount: filled - offset)
            }
            filled -= offset
        }
        if batch > 0 {
            var ack = UInt64(received).bigEndian
            withUnsafeBytes(of: &ack) { writeAll(fd, $0) }
        }
    }
    sqlite3_finalize(insert)
    sqlite3_close(db)
}

/// The sender: keeps up to `window` records unacknowledged — it writes until the window is full (in
/// chunks of 256 KiB), and only then waits for an acknowledgement.
func sendRecords(_ fd: Int32, count: Int, size: Int, window: Int) -> Double {
    var record = [UInt8](repeating: 0, count: 4 + size)
    record[0] = UInt8(size >> 24 & 0xFF); record[1] = UInt8(size >> 16 & 0xFF)
    record[2] = UInt8(size >> 8 & 0xFF); record[3] = UInt8(size & 0xFF)
    for i in 4..<record.count { record[i] = UInt8(truncatingIfNeeded: i &* 131) }
    var sent = 0, acked = 0
    var ackBuffer = [UInt8](repeating: 0, count: 4096)
    var ackFilled = 0
    let start = now()
    while acked < count {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(256 * 1024 + record.count)
        while sent < count && sent - acked < window {
            chunk += record
            sent += 1
            if chunk.count >= 256 * 1024 {
                chunk.withUnsafeBytes { writeAll(fd, $0) }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { chunk.withUnsafeBytes { writeAll(fd, $0) } }
        guard readSome(fd, &ackBuffer, &ackFilled) else { fail("receiver closed early") }
        while ackFilled >= 8 {
            var value: UInt64 = 0
            for i in 0..<8 { value = value << 8 | UInt64(ackBuffer[i]) }
            acked = max(acked, Int(value))
            ackBuffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + 8, byteCount: ackFilled - 8) }
            ackFilled -= 8
        }
    }
    return now() - start
}

var count = 50_000, size = 2_500, window = 4096, directory = "/tmp"
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fail("\(flag) needs a value") }
    switch flag {
    case "--count": count = Int(value) ?? count
    case "--size": size = Int(value) ?? size
    case "--window": window = Int(value) ?? window
    case "--dir": directory = value
    default: fail("unknown option \(flag) (usage: bench-baseline --count N --size BYTES --dir DIR [--window W])")
    }
}

var fds: [Int32] = [0, 0]
guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fail("socketpair") }
var bufferSize: Int32 = 4 << 20
for fd in fds {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufferSize, 4)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferSize, 4)
}
let databasePath = directory + "/baseline-\(getpid()).sqlite"
let child = fork()
if child == 0 {
    close(fds[0])
    receive(fds[1], databasePath: databasePath, count: count)
    _exit(0)
}
close(fds[1])
let seconds = sendRecords(fds[0], count: count, size: size, window: window)
var status: Int32 = 0
waitpid(child, &status, 0)
for suffix in ["", "-wal", "-shm"] { unlink(databasePath + suffix) }
print("records=\(count) bytes=\(count * size) seconds=\(seconds) rate=\(Double(count) / seconds)")
