import ModeldCore
import CLinuxShims
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
// A fixed mmap threshold: glibc otherwise raises it to the size of each large buffer freed (up
// to 32 MiB), after which request-sized buffers (an inflated event body, up to
// max_event_inflated_bytes) come from the heap and stay resident once freed — a few gzip bombs
// then grew the process by ~19 MiB instead of returning it.
_ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
#endif

exit(ModeldApp.run(arguments: Array(CommandLine.arguments.dropFirst()),
                   environment: ProcessInfo.processInfo.environment))
