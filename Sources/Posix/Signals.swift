import CLinux
import Glibc

/// Signals delivered as readable events on a descriptor (`signalfd`), so the event loop handles SIGTERM
/// between two iterations — never in the middle of a transaction.
package final class SignalSource {
    package let descriptor: FileDescriptor

    /// Blocks `signals` for the whole process and unblocks every other signal, resets their
    /// dispositions (a child inherits ignored signals and, from Dispatch threads, a mask that blocks
    /// SIGTERM), ignores SIGPIPE, and opens a `signalfd` for `signals`.
    package init(_ signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals {
            sigaddset(&mask, signal)
            Glibc.signal(signal, SIG_DFL)
        }
        Glibc.signal(SIGPIPE, SIG_IGN)
        let result = pthread_sigmask(SIG_SETMASK, &mask, nil)
        guard result == 0 else { throw SystemError("pthread_sigmask", errno: result) }
        let raw = try systemCall("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
        descriptor = FileDescriptor(adopting: raw)
    }

    /// The signals that arrived since the last call.
    package func drain() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        // Through the funnel: EINTR retried; nothing more to read (EAGAIN) or a failure ends the drain.
        while let n = try? nonBlockingCall("read(signalfd)", { Glibc.read(descriptor.rawValue, &info, size) }), n == size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}

/// Gives `signals` their default action and unblocks them, for a process that they must end (Ctrl-C on
/// a client that stays attached) even when its parent started it with them ignored or blocked.
package func restoreDefaultSignals(_ signals: [Int32]) {
    for signal in signals { Glibc.signal(signal, SIG_DFL) }
    unblockSignals(signals)
}

/// Unblocks `signals` for the calling thread: a parent (a test runner's thread, Dispatch) may have
/// started the process with them blocked, and a handler installed for them would never run.
package func unblockSignals(_ signals: [Int32]) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in signals { sigaddset(&mask, signal) }
    pthread_sigmask(SIG_UNBLOCK, &mask, nil)
}
