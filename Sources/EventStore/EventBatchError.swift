import JSONSupport

/// A rejected batch, shaped for SPEC §10's `{"error": code, "message": message}` answer.
public struct EventBatchError: Error, Equatable, Sendable {
    public let status: Int
    public let code: String
    public let message: String
    /// Events in the rejected batch when its `events` array was read (else 0), for
    /// `modeld_events_total{result="rejected"}` via `EventStore.noteRejected(events:)`.
    public internal(set) var eventCount = 0

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func invalidJSON(_ f: JSONReader.Failure) -> Self {
        Self(status: 400, code: "invalid_json", message: "\(f.reason) at byte \(f.offset)")
    }
    static func invalidBatch(_ message: String) -> Self { Self(status: 400, code: "invalid_batch", message: message) }
    static func invalidEvent(_ index: Int, _ field: String, _ message: String) -> Self {
        Self(status: 400, code: "invalid_event", message: "events[\(index)]\(field.isEmpty ? "" : ".")\(field): \(message)")
    }
}
