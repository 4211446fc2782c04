import Glibc
import RunWayCLI

exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
