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
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/// glibc 2.34's close-every-descriptor-from action, declared only under _GNU_SOURCE.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// A pipe whose ends are close-on-exec from the start, declared only under _GNU_SOURCE.
extern int pipe2(int pipefd[2], int flags);

/// `prctl` is variadic, which Swift cannot call: the one option used here.
static inline int runway_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

/// Sends `length` bytes of `bytes` as one datagram to `address`, with descriptor `fd` attached
/// (`SCM_RIGHTS`): the sd_notify store (`FDSTORE=1`). The CMSG macros cannot be called from Swift.
static inline ssize_t runway_send_with_descriptor(
    int socket, const void *bytes, size_t length, const struct sockaddr *address, socklen_t addressLength, int fd) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof(control));
    struct msghdr message = {0};
    message.msg_name = (void *)address;
    message.msg_namelen = addressLength;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof(control.buffer);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

/// Receives one datagram of at most `length` bytes; a descriptor it carries (`SCM_RIGHTS`, close-on-exec)
/// goes to `*fd` (-1 when none). Any further descriptors are closed: the receiver keeps at most one.
static inline ssize_t runway_receive_with_descriptor(int socket, void *bytes, size_t length, int *fd) {
    struct iovec vector = {.iov_base = bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {0};
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof(control.buffer);
    *fd = -1;
    ssize_t received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < count; index++) {
            int passed;
            memcpy(&passed, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*fd < 0) *fd = passed; else close(passed);
        }
    }
    return received;
}
#endif
