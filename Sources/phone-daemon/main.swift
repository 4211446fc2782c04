import RunWayDevices
import Glibc

exit(DaemonMain.phone(Array(CommandLine.arguments.dropFirst())))
