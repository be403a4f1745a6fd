/// Engine settings; SPEC §8 `limits` supply the defaults.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Event-loop threads; 0 = one per online core.
    public var workers: Int
    public var maxConnections: Int
    public var maxHeaderBytes: Int
    /// Seconds allowed for a whole request head (slowloris), also for a fresh connection's first byte.
    public var headerTimeout: Double
    /// Seconds a keep-alive connection may sit between requests.
    public var idleTimeout: Double
    /// Seconds without progress while reading a body, or while the client does not take response bytes.
    public var bodyTimeout: Double

    public init(host: String = "0.0.0.0", port: Int = 8080, workers: Int = 0, maxConnections: Int = 10_000,
                maxHeaderBytes: Int = 65_536, headerTimeout: Double = 10, idleTimeout: Double = 60, bodyTimeout: Double = 30) {
        self.host = host
        self.port = port
        self.workers = workers
        self.maxConnections = maxConnections
        self.maxHeaderBytes = maxHeaderBytes
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
    }
}
