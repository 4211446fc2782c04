import OSProcess
import Glibc

exit(PhoneOSMain.main(Array(CommandLine.arguments.dropFirst())))
