import OSProcess
import Glibc

exit(WatchOSMain.main(Array(CommandLine.arguments.dropFirst())))
