import CLinux
import Glibc

/// A child that must not outlive the process that started it: the kernel kills it when its parent
/// dies (`PR_SET_PDEATHSIG`), however the parent dies — SIGKILL included, where no handler of the
/// parent's could run.
package enum ParentDeath {
    /// Asks for SIGKILL when the parent dies, then checks that the parent is still `expected`. The
    /// check closes the race the request alone leaves open: a parent that died between our `fork` and
    /// this call has already handed us to another (init or a subreaper), and no signal will ever come.
    /// Returns false when the parent is gone (the caller must exit at once), true when the tether holds.
    package static func tether(to expected: pid_t) -> Bool {
        guard runway_set_parent_death_signal(SIGKILL) == 0 else { return false }
        return getppid() == expected
    }
}
