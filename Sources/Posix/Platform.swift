// The C library, for every module above this one: they import `Posix`, never the C library itself, and
// call the system only through what this module wraps (`PackageRulesTests`: no `errno`, no raw `recv`,
// `pread`, `link` or `rename`, no call only Linux has, outside `Posix`). What is Linux's alone is here:
// `signalfd` (`Signals`), `inotify` (`DirectoryWatcher`), `eventfd` (`LoopMailbox`), `SO_PEERCRED`
// (`UnixSocket.peerCredentials`), `prctl` (`ParentDeath`), `malloc_trim` (`FreeMemory`), the descriptor
// flags given at creation (`SOCK_CLOEXEC`, `SOCK_NONBLOCK`), `MSG_NOSIGNAL`, `/proc` (`Processes`), the
// pseudo-terminal's ioctls (`PseudoTerminal`), `st_mtim` (`Filesystem.Times`) and glibc's
// `posix_spawn_file_actions_addclosefrom_np` (`Spawn`). A port to macOS re-exports Darwin here and
// replaces those (the Platforms page lists them).
#if canImport(Glibc)
    @_exported import Glibc
#endif
