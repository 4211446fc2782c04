import Devices
import Glibc

exit(DaemonMain.watch(Array(CommandLine.arguments.dropFirst())))
