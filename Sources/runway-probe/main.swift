import Posix
import PairTesting

// runway-probe: connects to a Unix socket, optionally as another user, sends the given bytes and prints
// what came back. The hardening tests use it to be a peer of another uid (a test runs as one user and
// cannot change its own uid), which both daemons must refuse.
//
//   runway-probe --socket PATH [--uid UID] [--send-hex HEX] [--wait-ms MS]
//
// Prints one line: `closed=yes|no received=HEX` (or `connect-failed=REASON`); exit status 2 on bad usage.

func fail(_ text: String, status: Int32) -> Never {
    let bytes = Array("runway-probe: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func usage(_ problem: String) -> Never {
    fail("\(problem)\nusage: runway-probe --socket PATH [--uid UID] [--send-hex HEX] [--wait-ms MS]", status: 2)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard ["--socket", "--uid", "--send-hex", "--wait-ms"].contains(name), let value = arguments.popFirst() else {
        usage("unknown option or missing value: \(name)")
    }
    options[String(name.dropFirst(2))] = value
}
guard let path = options["socket"] else { usage("--socket is required") }
guard let payload = bytes(fromHex: options["send-hex"] ?? "") else { usage("--send-hex must be hex digits") }
guard let waitMs = Int(options["wait-ms"] ?? "3000"), waitMs >= 0 else { usage("--wait-ms must be a whole number") }

// Become the other user before connecting: the kernel records the peer's credentials at connect().
if let text = options["uid"] {
    guard let uid = UInt32(text) else { usage("--uid must be a user id") }
    do {
        _ = try systemCall("setgroups") { setgroups(0, nil) }
        _ = try systemCall("setgid") { setgid(uid) }
        _ = try systemCall("setuid") { setuid(uid) }
    } catch {
        fail("cannot become uid \(uid): \(String(cString: strerror(error.errno)))", status: 1)
    }
}

do {
    let client = try RawClient(path: path)
    if !payload.isEmpty { client.send(payload) }
    client.receive(waitingUpTo: Double(waitMs) / 1000)
    print("closed=\(client.peerClosed ? "yes" : "no") received=\(hexString(client.received))")
} catch {
    print("connect-failed=\(error)")
}
