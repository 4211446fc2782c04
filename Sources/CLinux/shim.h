// Linux interfaces that Glibc's Swift module does not export. Only headers that need no feature
// macros belong here: defining _GNU_SOURCE would clash with the Glibc module.
#ifndef RUNWAY_CLINUX_SHIM_H
#define RUNWAY_CLINUX_SHIM_H
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <malloc.h>
#include <spawn.h>

/// glibc 2.34's close-every-descriptor-from action, declared only under _GNU_SOURCE.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// A pipe whose ends are close-on-exec from the start, declared only under _GNU_SOURCE.
extern int pipe2(int pipefd[2], int flags);

/// `prctl` is variadic, which Swift cannot call: the one option used here.
static inline int runway_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}
#endif
