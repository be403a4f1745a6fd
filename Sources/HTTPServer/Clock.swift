import Glibc

/// Time sources for the loops: monotonic for deadlines and summaries, coarse wall clock for Date.
enum Clock {
    static func monotonicNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func epochSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        return Int64(ts.tv_sec)
    }

    static func nanos(_ seconds: Double) -> Int64 { Int64(seconds * 1_000_000_000) }
}
