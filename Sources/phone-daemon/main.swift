import RunWayDevices
import Posix

exit(DaemonMain.phone(Array(CommandLine.arguments.dropFirst())))
