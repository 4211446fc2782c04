// Nothing in C: the module exists so that `import os.log` finds a Clang module `os` with a submodule
// `log`; the names are the Swift overlay's (Sources/os).
#ifndef RUNWAY_COSLOG_SHIM_H
#define RUNWAY_COSLOG_SHIM_H
#endif
