// Linux interfaces that Glibc's Swift module does not export. Only headers that need no feature
// macros belong here: defining _GNU_SOURCE would clash with the Glibc module.
#ifndef RUNWAY_CLINUX_SHIM_H
#define RUNWAY_CLINUX_SHIM_H
#include <sys/signalfd.h>
#include <sys/inotify.h>
#include <sys/eventfd.h>
#endif
