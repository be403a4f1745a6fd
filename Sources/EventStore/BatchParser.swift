import JSONSupport

/// Validates an event upload body (SPEC §4.2) without I/O. The batch is validated whole: the
/// first failure is returned and nothing of the batch is kept.
public enum BatchParser {
    public static func parse(
        _ body: [UInt8], queryClientID: String?, maxEventsPerBatch: Int
    ) throws(EventBatchError) -> EventBatch {
        let root: JSONNode
        do { root = try JSONReader.parse(body) } catch { throw .invalidJSON(error) }
        guard case .object = root.value else { throw .invalidBatch("the body must be a JSON object") }

        guard let batchID = root.value["batch_id"]?.stringValue, isBatchID(batchID) else {
            throw .invalidBatch("batch_id: required, 1-64 characters [A-Za-z0-9_-]")
        }
        var clientID = queryClientID
        if let value = root.value["client_id"] {
            guard let s = value.stringValue, isClientID(s) else {
                throw .invalidBatch("client_id: must be 1-128 printable ASCII characters")
            }
            clientID = s
        }
        guard case .array(let events)? = root.value["events"] else { throw .invalidBatch("events: required, an array") }
        guard events.count <= maxEventsPerBatch else {
            var error = EventBatchError(status: 413, code: "too_many_events",
                                        message: "\(events.count) events, at most \(maxEventsPerBatch) per batch")
            error.eventCount = events.count
            throw error
        }
        var spans: [(start: Int, close: Int)] = []
        spans.reserveCapacity(events.count)
        for (index, event) in events.enumerated() {
            do {
                try validate(event.value, index: index)
            } catch {
                var error = error
                error.eventCount = events.count
                throw error
            }
            spans.append((event.range.lowerBound, event.range.upperBound - 1))
        }
        return EventBatch(batchID: batchID, clientID: clientID, body: body, events: spans)
    }

    static func isBatchID(_ s: String) -> Bool {
        let u = s.utf8
        return (1...64).contains(u.count) && u.allSatisfy {
            switch $0 {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// Printable ASCII is 0x20...0x7E (C `isprint`), space included.
    public static func isClientID(_ s: String) -> Bool {
        let u = s.utf8
        return (1...128).contains(u.count) && u.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Latest epoch millisecond accepted as `ts` (9999-12-31T23:59:59.999Z).
    static let maxEpochMillis = 253_402_300_799_999.0

    private static func validate(_ event: JSONValue, index: Int) throws(EventBatchError) {
        guard case .object(let members) = event else { throw .invalidEvent(index, "", "must be an object") }
        for m in members where EventBatch.serverFields.contains(m.key) {
            throw .invalidEvent(index, m.key, "reserved for the server")
        }
        switch event["name"] {
        case nil: throw .invalidEvent(index, "name", "required")
        case .string(let s)? where (1...64).contains(s.unicodeScalars.count): break
        default: throw .invalidEvent(index, "name", "must be a string of 1-64 characters")
        }
        switch event["ts"] {
        case nil: throw .invalidEvent(index, "ts", "required")
        case .string(let s)? where EventTime.isRFC3339(s): break
        case .number(let d)? where d >= 0 && d <= maxEpochMillis && d == d.rounded(): break
        default: throw .invalidEvent(index, "ts", "must be an RFC 3339 date-time string or epoch milliseconds")
        }
        switch event["model_id"] {
        case nil, .string?: break
        default: throw .invalidEvent(index, "model_id", "must be a string")
        }
        switch event["outcome"] {
        case nil: break
        case .string(let s)? where s.unicodeScalars.count <= 64: break
        default: throw .invalidEvent(index, "outcome", "must be a string of at most 64 characters")
        }
        switch event["value"] {
        case nil: break
        case .number(let d)? where d.isFinite: break
        default: throw .invalidEvent(index, "value", "must be a finite number")
        }
        switch event["props"] {
        case nil: break
        case .object(let props)?:
            guard props.count <= 32 else { throw .invalidEvent(index, "props", "at most 32 keys") }
            for p in props {
                switch p.node.value {
                case .bool: continue
                case .number(let d) where d.isFinite: continue
                case .string(let s) where s.unicodeScalars.count <= 256: continue
                default: throw .invalidEvent(index, "props.\(p.key)", "must be a string of at most 256 characters, a finite number or a bool")
                }
            }
        default: throw .invalidEvent(index, "props", "must be an object")
        }
    }
}
