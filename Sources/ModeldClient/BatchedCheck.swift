import ContentDigest
import Foundation

/// One `POST /check` for several channels (SPEC §17.2), without I/O: which queued event
/// batches ride along, the batch id they go under, the request body, and the answer read back.
///
/// Each channel keeps its own durable queue (``EventQueue``); a batched check carries the oldest
/// sealed batch of each channel, as many as fit one upload (``EventQueue/maxEvents`` events,
/// ``EventQueue/maxBytes``). The combined `batch_id` is derived from the riders' own batch ids,
/// so a retry of the same riders — after a lost answer or a crash — reuses it and the server
/// stores them once.
enum BatchedCheck {
    static let maxChannels = 256

    /// A channel's part of the check.
    struct Part: Sendable {
        let channel: String
        let clientID: String
        /// The active model's SHA-256 (SPEC §17.2 `installed`).
        let installed: String?
        /// The channel's oldest queued batch.
        let events: EventQueue.Batch?
    }

    /// The batches that ride along: oldest-first per channel, in channel order, while the total
    /// stays within one upload's bounds.
    static func riders(_ parts: [Part]) -> [(channel: String, batch: EventQueue.Batch)] {
        var chosen: [(channel: String, batch: EventQueue.Batch)] = []
        var events = 0, bytes = 0
        for part in parts {
            guard let batch = part.events else { continue }
            let size = batch.lines.reduce(0) { $0 + $1.count + 1 }
            guard events + batch.lines.count <= EventQueue.maxEvents, bytes + size <= EventQueue.maxBytes else { continue }
            chosen.append((part.channel, batch))
            events += batch.lines.count
            bytes += size
        }
        return chosen
    }

    /// 64 hex characters (§4.2's `batch_id` alphabet and length) naming exactly these riders.
    static func batchID(_ riders: [(channel: String, batch: EventQueue.Batch)]) -> String {
        SHA256Hex.of(Array(riders.map { "\($0.channel)/\($0.batch.batchID)\n" }.sorted().joined().utf8))
    }

    static func body(clientID: String, parts: [Part], riders: [(channel: String, batch: EventQueue.Batch)]) -> Data {
        var object: [String: Any] = ["client_id": clientID, "channels": parts.map(\.channel)]
        let installed = Dictionary(parts.compactMap { p in p.installed.map { (p.channel, $0) } }) { a, _ in a }
        if !installed.isEmpty { object["installed"] = installed }
        var body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        guard !riders.isEmpty else { return body }
        // The events are the queued lines verbatim, as `EventQueue.body` sends them.
        body.removeLast()   // "}"
        body.append(Data(",\"batch_id\":\"\(batchID(riders))\",\"events\":[".utf8))
        for (i, line) in riders.flatMap(\.batch.lines).enumerated() {
            if i > 0 { body.append(0x2C) }
            body.append(line)
        }
        body.append(Data("]}".utf8))
        return body
    }

    /// `{"answers":{channel: document | null}}` → each asked channel's document as JSON bytes
    /// (nil: `null`, no model). A channel the answer does not name is a verification failure.
    static func answers(_ body: [UInt8], channels: [String]) throws -> [String: Data?] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let answers = root["answers"] as? [String: Any] else {
            throw ModeldClientError.verification("the answer to POST /check has no answers object")
        }
        var out: [String: Data?] = [:]
        for channel in channels {
            switch answers[channel] {
            case nil: throw ModeldClientError.verification("the answer to POST /check has no answer for channel \(channel)")
            case is NSNull: out[channel] = .some(nil)
            case let document as [String: Any]: out[channel] = try JSONSerialization.data(withJSONObject: document)
            default: throw ModeldClientError.verification("the answer for channel \(channel) is not a release document")
            }
        }
        return out
    }
}
