import OSProcess
import Posix

exit(PhoneOSMain.main(Array(CommandLine.arguments.dropFirst())))
