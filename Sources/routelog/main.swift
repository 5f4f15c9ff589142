import Foundation

// Everything happens in Routelog.run, so that tests can call it in-process too.
exit(Routelog.run(Array(CommandLine.arguments.dropFirst()), console: .standard))
