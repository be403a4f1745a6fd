import CivilTime
import JSONSupport

/// One access-log line (SPEC §6) as the egress report reads it back, reduced to what the cost
/// report needs (ModeldCore's `AccessLogRecord` is the line as the server writes it).
public struct EgressLogRecord: Equatable, Sendable {
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
        let source = Array(line.utf8)
        let value: JSONNode
        do { value = try JSONReader.parse(source) } catch { throw AccessLogError(reason: error.description) }
        guard case .object = value.value else { throw AccessLogError(reason: "not a JSON object") }

        func string(_ key: String, required: Bool) throws(AccessLogError) -> String? {
            switch value[key]?.value {
            case .string(let s)?: return s
            case nil, .null?: if required { throw AccessLogError(reason: "'\(key)' is missing") } else { return nil }
            default: throw AccessLogError(reason: "'\(key)' must be a string")
            }
        }
        func integer(_ key: String) throws(AccessLogError) -> Int64 {
            guard let i = value[key]?.integer(in: source), i >= 0 else {
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
        range = value["range"]?.value.boolValue == true
        durationMs = value["duration_ms"]?.value.numberValue
        modelID = try string("model_id", required: false)
        sdk = try string("sdk", required: false)
        instance = try string("instance", required: false)
    }

    /// True for a real calendar day `YYYY-MM-DD`.
    public static func isDay(_ s: some StringProtocol) -> Bool { RFC3339.parseDay(s) != nil }
}

/// An access-log line that is not a record; the CLI adds file and line.
public struct AccessLogError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
