import Posix
import RunWayCLI

exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
