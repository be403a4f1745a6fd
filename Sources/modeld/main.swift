import ModeldCore
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

exit(ModeldApp.run(arguments: Array(CommandLine.arguments.dropFirst()),
                   environment: ProcessInfo.processInfo.environment))
