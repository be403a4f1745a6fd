// One line of the access log (SPEC §6). Built on a loop thread from the exchange summary,
// serialised on the writer thread.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct AccessLogRecord: Sendable, Equatable {
    /// Wall-clock time (Unix epoch, milliseconds) when the exchange finished; written as RFC 3339 UTC.
    public var timestampMilliseconds: Int64
    public var method: String
    /// The request target's path; anything from `?` on is not written.
    public var path: String
    public var route: MetricsRoute
    public var status: Int
    /// Body bytes the kernel accepted (successful write/sendfile returns).
    public var bytes: Int64
    /// True when the request carried a Range header (a download resume or partial fetch).
    public var range: Bool
    public var durationMilliseconds: Double
    /// The release id, for model files.
    public var modelID: String?
    /// The `sdk` query parameter, when given.
    public var sdk: String?
    public var instance: String

    public init(timestampMilliseconds: Int64, method: String, path: String, route: MetricsRoute,
                status: Int, bytes: Int64, range: Bool, durationMilliseconds: Double,
                modelID: String? = nil, sdk: String? = nil, instance: String) {
        self.timestampMilliseconds = timestampMilliseconds
        self.method = method
        self.path = path
        self.route = route
        self.status = status
        self.bytes = bytes
        self.range = range
        self.durationMilliseconds = durationMilliseconds
        self.modelID = modelID
        self.sdk = sdk
        self.instance = instance
    }

    /// The current wall-clock time for `timestampMilliseconds`.
    public static func currentTimeMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
