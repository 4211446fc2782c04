import RunWayDevices
import Posix

exit(DaemonMain.watch(Array(CommandLine.arguments.dropFirst())))
