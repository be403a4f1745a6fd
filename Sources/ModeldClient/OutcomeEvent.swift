import Foundation

/// One outcome event (SPEC §4.2): what happened after the model's prediction.
public struct OutcomeEvent: Sendable, Equatable {
    /// A `props` value: string (≤ 256 chars), number or bool.
    public enum Property: Sendable, Equatable {
        case string(String), number(Double), bool(Bool)
    }

    public var name: String
    public var timestamp: Date
    public var modelID: String?
    public var outcome: String?
    public var value: Double?
    public var props: [String: Property]

    public init(name: String, timestamp: Date = Date(), modelID: String? = nil, outcome: String? = nil,
                value: Double? = nil, props: [String: Property] = [:]) {
        self.name = name
        self.timestamp = timestamp
        self.modelID = modelID
        self.outcome = outcome
        self.value = value
        self.props = props
    }

    /// Checks what the server would reject, so a bad event fails at `record` and never reaches a batch.
    func validate() throws {
        func bad(_ why: String) -> ModeldClientError { .invalidConfiguration("event: \(why)") }
        guard (1...64).contains(name.count) else { throw bad("name must be 1–64 characters") }
        if let outcome, outcome.count > 64 { throw bad("outcome is longer than 64 characters") }
        if let value, !value.isFinite { throw bad("value must be a finite number") }
        guard props.count <= 32 else { throw bad("more than 32 props") }
        for (key, value) in props {
            if case .string(let s) = value, s.count > 256 { throw bad("props.\(key) is longer than 256 characters") }
            if case .number(let n) = value, !n.isFinite { throw bad("props.\(key) must be finite") }
        }
    }

    /// One JSON object, as sent on the wire (`ts` in epoch milliseconds).
    func jsonLine() throws -> Data {
        var object: [String: Any] = ["name": name, "ts": Int64((timestamp.timeIntervalSince1970 * 1000).rounded())]
        if let modelID { object["model_id"] = modelID }
        if let outcome { object["outcome"] = outcome }
        if let value { object["value"] = value }
        if !props.isEmpty {
            object["props"] = props.mapValues { value -> Any in
                switch value {
                case .string(let s): s
                case .number(let n): n
                case .bool(let b): b
                }
            }
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
