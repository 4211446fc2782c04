import Glibc
import Testing
@testable import Posix
import PairTesting

@Suite struct SocketAndLockTests {
    @Test func socketPathLongerThanSunPathIsAClearError() {
        let path = "/tmp/" + String(repeating: "x", count: 120)
        #expect(throws: UnixSocketAddress.AddressError.self) { try UnixSocketAddress(path: path) }
        do {
            _ = try UnixSocketAddress(path: path)
        } catch {
            #expect(error.description.contains("107 bytes"))
        }
        #expect((try? UnixSocketAddress(path: "/tmp/" + String(repeating: "x", count: 102))) != nil)
    }

    @Test func listenConnectAcceptAndPeerCredentials() throws {
        let directory = makeTemporaryDirectory("sock")
        defer { removeDirectory(directory) }
        let address = try UnixSocketAddress(path: directory + "/s.sock")
        let listener = try UnixSocket.listen(at: address)
        #expect(Filesystem.mode(of: address.path) == 0o600)
        let client = try UnixSocket.connect(to: address)
        var accepted: FileDescriptor?
        for _ in 0..<100 where accepted == nil {
            accepted = try UnixSocket.accept(from: listener)
        }
        let server = try #require(accepted)
        let peer = try UnixSocket.peerCredentials(of: server)
        #expect(peer.uid == getuid())
        #expect(peer.pid == getpid())
        client.close()
    }

    @Test func staleSocketsAreRemovedButOtherFilesAreNot() throws {
        let directory = makeTemporaryDirectory("stale")
        defer { removeDirectory(directory) }
        let address = try UnixSocketAddress(path: directory + "/s.sock")
        let listener = try UnixSocket.listen(at: address)
        listener.close()
        #expect(Filesystem.kind(of: address.path) == .socket)
        try UnixSocket.removeStaleSocket(at: address)
        #expect(Filesystem.kind(of: address.path) == .missing)
        let regular = try UnixSocketAddress(path: directory + "/plain")
        try Filesystem.writeAtomically(Array("keep me".utf8), to: regular.path)
        #expect(throws: SystemError.self) { try UnixSocket.removeStaleSocket(at: regular) }
        #expect(Filesystem.kind(of: regular.path) == .regular)
    }

    @Test func aSecondLockOnTheSameFileNamesTheHolder() throws {
        let directory = makeTemporaryDirectory("lock")
        defer { removeDirectory(directory) }
        let path = directory + "/lock"
        let held = try FileLock(path: path)
        #expect(FileLock.holder(of: path) == .some(getpid()))
        // flock locks belong to the open file description: a second open in this process conflicts.
        do {
            _ = try FileLock(path: path)
            Issue.record("a second lock succeeded")
        } catch let .heldBy(pid, _) {
            #expect(pid == getpid())
        } catch {
            Issue.record("unexpected \(error)")
        }
        held.unlock()
        #expect(FileLock.holder(of: path) == .none)
        _ = try FileLock(path: path)
    }

    @Test func homesAreCreatedWithMode0700() throws {
        let directory = makeTemporaryDirectory("home")
        defer { removeDirectory(directory) }
        try Filesystem.makeDirectory(directory + "/a/b", mode: 0o700)
        #expect(Filesystem.mode(of: directory + "/a/b") == 0o700)
    }

    @Test func crashPointSpecParsing() {
        #expect(CrashPoint.parse(nil) == nil)
        #expect(CrashPoint.parse("") == nil)
        #expect(CrashPoint.parse("receive.after-commit")! == ("receive.after-commit", 1))
        #expect(CrashPoint.parse("receive.after-commit:7")! == ("receive.after-commit", 7))
        #expect(CrashPoint.parse("x:0")! == ("x", 1))
    }
}
