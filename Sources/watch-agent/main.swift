import RunWayDevices
import Glibc

exit(DaemonMain.watch(Array(CommandLine.arguments.dropFirst())))
