import Devices
import Glibc

exit(DaemonMain.phone(Array(CommandLine.arguments.dropFirst())))
