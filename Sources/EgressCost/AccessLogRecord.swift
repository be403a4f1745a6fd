/// One access-log line (SPEC §6), reduced to what the cost report needs.
public struct AccessLogRecord: Equatable, Sendable {
    public var ts: String
    public var method: String
    public var path: String
    public var route: String
    public var status: Int
    public var bytes: Int64
    public var range: Bool
    public var durationMs: Double?
    public var modelID: String?
    public var sdk: String?
    public var instance: String?

    public init(ts: String, method: String = "GET", path: String, route: String, status: Int, bytes: Int64,
                range: Bool = false, durationMs: Double? = nil, modelID: String? = nil, sdk: String? = nil, instance: String? = nil) {
        self.ts = ts; self.method = method; self.path = path; self.route = route; self.status = status
        self.bytes = bytes; self.range = range; self.durationMs = durationMs; self.modelID = modelID
        self.sdk = sdk; self.instance = instance
    }

    /// The UTC day `YYYY-MM-DD` of `ts` (the log writes UTC `…Z` timestamps).
    public var day: Substring { ts.prefix(10) }

    /// Parses one JSON line. `ts`, `path`, `route`, `status` and `bytes` are required;
    /// unknown fields are ignored so the log can grow.
    public init(jsonLine line: some StringProtocol) throws(AccessLogError) {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw AccessLogError(reason: error.description) }
        guard case .object = value else { throw AccessLogError(reason: "not a JSON object") }

        func string(_ key: String, required: Bool) throws(AccessLogError) -> String? {
            switch value[key] {
            case .string(let s)?: return s
            case nil, .null?: if required { throw AccessLogError(reason: "'\(key)' is missing") } else { return nil }
            default: throw AccessLogError(reason: "'\(key)' must be a string")
            }
        }
        func integer(_ key: String) throws(AccessLogError) -> Int64 {
            guard case .number(let n)? = value[key], let i = Int64(n), i >= 0 else {
                throw AccessLogError(reason: "'\(key)' must be a non-negative integer")
            }
            return i
        }

        let ts = try string("ts", required: true)!
        guard Self.isDay(ts.prefix(10)) else { throw AccessLogError(reason: "'ts' must be an RFC 3339 timestamp") }
        self.ts = ts
        method = try string("method", required: false) ?? "GET"
        path = try string("path", required: true)!
        route = try string("route", required: true)!
        let status = try integer("status")
        guard (100...999).contains(status) else { throw AccessLogError(reason: "'status' must be an HTTP status") }
        self.status = Int(status)
        bytes = try integer("bytes")
        range = value["range"] == .bool(true)
        if case .number(let n)? = value["duration_ms"] { durationMs = Double(n) } else { durationMs = nil }
        modelID = try string("model_id", required: false)
        sdk = try string("sdk", required: false)
        instance = try string("instance", required: false)
    }

    /// True for `YYYY-MM-DD` with plausible month and day.
    public static func isDay(_ s: some StringProtocol) -> Bool {
        let c = Array(s.utf8)
        guard c.count == 10, c[4] == UInt8(ascii: "-"), c[7] == UInt8(ascii: "-") else { return false }
        for i in [0, 1, 2, 3, 5, 6, 8, 9] where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c[i]) { return false }
        let month = Int(c[5] - 48) * 10 + Int(c[6] - 48), day = Int(c[8] - 48) * 10 + Int(c[9] - 48)
        return (1...12).contains(month) && (1...31).contains(day)
    }
}

/// An access-log line that is not a record; the CLI adds file and line.
public struct AccessLogError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
