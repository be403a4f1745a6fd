import JSONSupport

/// A validated batch (SPEC §4.2): the body bytes plus where each event object lies in them.
public struct EventBatch: Sendable {
    public let batchID: String
    /// The body's `client_id`, else the query's; nil when neither was given.
    public let clientID: String?
    public let dedupKey: DedupKey
    /// The request body the events are spliced from (shared, never copied until the write buffer).
    let body: [UInt8]
    /// Per event: start of its object and the offset of its closing `}`.
    let events: [(start: Int, close: Int)]

    public var eventCount: Int { events.count }

    /// An upper estimate of the stored lines' size (the body plus the server fields), for group sizing.
    var estimatedLineBytes: Int { body.count + events.count * (256 + batchID.utf8.count + (clientID?.utf8.count ?? 4)) }

    init(batchID: String, clientID: String?, body: [UInt8], events: [(start: Int, close: Int)]) {
        self.batchID = batchID
        self.clientID = clientID
        self.dedupKey = DedupKey(clientID: clientID, batchID: batchID)
        self.body = body
        self.events = events
    }

    /// Fields the server appends to every stored event; a client event may not carry them.
    static let serverFields: Set<String> = ["received_at", "batch_id", "client_id", "sdk", "seq", "instance"]

    /// Appends one JSON line per event: the client's object verbatim, the server fields spliced
    /// in before its closing brace. Newlines between tokens become spaces (JSON strings cannot
    /// hold raw newlines, so this never changes a value) to keep one event per line.
    func appendLines(to out: inout [UInt8], receivedAt: String, sdk: String?, instance: String) {
        var head: [UInt8] = Array(",\"received_at\":\"\(receivedAt)\",\"batch_id\":\"\(batchID)\",\"client_id\":".utf8)
        appendJSONString(clientID, to: &head)
        head.append(contentsOf: ",\"sdk\":".utf8)
        appendJSONString(sdk, to: &head)
        head.append(contentsOf: ",\"seq\":".utf8)
        var tail: [UInt8] = Array(",\"instance\":".utf8)
        appendJSONString(instance, to: &tail)
        tail.append(contentsOf: "}\n".utf8)

        body.withUnsafeBufferPointer { b in
            for (seq, event) in events.enumerated() {
                let startCount = out.count
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[event.start..<event.close]))
                for i in startCount..<out.count where out[i] == 0x0A || out[i] == 0x0D { out[i] = 0x20 }
                out.append(contentsOf: head)
                out.append(contentsOf: String(seq).utf8)
                out.append(contentsOf: tail)
            }
        }
    }
}

/// Appends `s` as a JSON string literal, or `null`.
func appendJSONString(_ s: String?, to out: inout [UInt8]) {
    guard let s else { out.append(contentsOf: "null".utf8); return }
    JSONString.append(s, to: &out)
}
