import JSONSupport

/// The fields of one stored event the guard reads (SPEC §11.2), taken from its line without
/// building the rest (`JSONReader.members`): the evaluator tails every event every instance
/// stores, so the parse is most of its CPU. A field that is absent or not of its type is nil.
public struct GuardEvent {
    public let clientID: String?
    public let receivedAt: String?
    public let name: String?
    public let sdk: String?
    public let modelID: String?
    public let outcome: String?
    public let value: Double?
    /// The read-side dedup's fields (SPEC §5) and the instance that stored it (§18's "newest
    /// event read per instance").
    public let batchID: String?
    public let seq: Int?
    public let instance: String?

    private static let fields: JSONReader.MemberNames = ["client_id", "received_at", "name", "sdk", "model_id", "outcome", "value", "batch_id", "seq", "instance"]

    /// nil for a line that is not a JSON object (torn, foreign): the tail skips and counts it,
    /// as it would any line `StoredEvent` rejects.
    public init?(line: ArraySlice<UInt8>) {
        // A line that is not an event is skipped and counted by the caller (SPEC §11.4).
        guard let v = try? JSONReader.members(Self.fields, of: line) else { return nil }
        clientID = v[0]?.stringValue
        receivedAt = v[1]?.stringValue
        name = v[2]?.stringValue
        sdk = v[3]?.stringValue
        modelID = v[4]?.stringValue
        outcome = v[5]?.stringValue
        value = v[6]?.numberValue
        batchID = v[7]?.stringValue
        seq = v[8]?.numberValue.flatMap { Int(exactly: $0) }
        instance = v[9]?.stringValue
    }
}
