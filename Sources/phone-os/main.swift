import Devices
import Glibc

exit(PhoneOSMain.main(Array(CommandLine.arguments.dropFirst())))
