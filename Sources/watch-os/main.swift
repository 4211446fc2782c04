import OSProcess
import Posix

exit(WatchOSMain.main(Array(CommandLine.arguments.dropFirst())))
