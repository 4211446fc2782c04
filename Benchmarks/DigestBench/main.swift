// The 200 MB file's hashing, as a sender (or the checker) does it: read from disk in 1 MiB pieces and
// hashed, then the same bytes hashed again from memory (the hash alone). Built by `scripts/bench-digest`
// with Sources/Digest/SHA256.swift, unoptimised (a debug build's code) and optimised (a release build's).
import Foundation

let path = CommandLine.arguments[1]
guard let handle = FileHandle(forReadingAtPath: path) else {
    FileHandle.standardError.write(Data("DigestBench: cannot read \(path)\n".utf8))
    exit(2)
}
var hasher = SHA256()
var start = Date()
var total = 0
var pieces: [Data] = []
while true {
    let data = handle.readData(ofLength: 1 << 20)
    if data.isEmpty { break }
    total += data.count
    data.withUnsafeBytes { hasher.update($0) }
    pieces.append(data)
}
let digest = hasher.finalize().hexString
var seconds = Date().timeIntervalSince(start)
print(String(format: "file %.2f s (%.0f MB/s)", seconds, Double(total) / seconds / 1e6), terminator: "  ")
start = Date()
var again = SHA256()
for piece in pieces { piece.withUnsafeBytes { again.update($0) } }
precondition(again.finalize().hexString == digest, "the two passes disagree")
seconds = Date().timeIntervalSince(start)
print(String(format: "memory %.2f s (%.0f MB/s)  %@", seconds, Double(total) / seconds / 1e6, digest))
