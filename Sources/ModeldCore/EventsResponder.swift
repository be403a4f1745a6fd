import EventStore
import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldConfig
import ModeldSigning

/// `POST /latest` (update check + outcome events) and `POST /events` (SPEC §4.2). Everything
/// decidable from the head (media type, encoding, sdk) is answered before the body is read; the
/// body is collected within `max_event_body_bytes`, inflated within `max_event_inflated_bytes`,
/// validated whole, and the response waits for the group commit that made it durable.
struct EventsResponder: Sendable {
    let store: EventStore
    /// nil on an ingest replica (SPEC §18), which has no catalog and no `POST /latest`.
    let latest: LatestResponder?
    let metrics: Metrics
    let limits: Configuration.Limits

    enum Encoding { case identity, gzip }

    /// The body's coding when the head announces a JSON body (§4.2's 415s otherwise); shared
    /// with `POST /check` (SPEC §17.2: the same media type, encodings and limits).
    static func bodyEncoding(_ head: RequestHead) throws(HTTPError) -> Encoding {
        guard isJSON(head.headers["Content-Type"]) else {
            throw HTTPError(415, "unsupported_media_type", "Content-Type must be application/json")
        }
        switch head.headers["Content-Encoding"]?.lowercased() {
        case nil, "identity": return .identity
        case "gzip", "x-gzip": return .gzip
        default: throw HTTPError(415, "unsupported_media_type", "Content-Encoding must be gzip or identity")
        }
    }

    /// The identity body within `max_event_inflated_bytes` (inflation stops at the limit).
    func inflated(_ raw: [UInt8], _ encoding: Encoding) throws(HTTPError) -> [UInt8] {
        guard encoding == .gzip else { return raw }
        do throws(GzipError) {
            return try Gzip.inflate(raw, limit: limits.maxEventInflatedBytes)
        } catch .tooLarge {
            throw HTTPError(413, "body_too_large", "inflated body exceeds \(limits.maxEventInflatedBytes) bytes")
        } catch {
            throw HTTPError(400, "invalid_gzip", "the body is not valid gzip")
        }
    }

    func handle(_ head: RequestHead, _ exchange: Exchange, withUpdateCheck: Bool) -> HeadDecision {
        let encoding: Encoding
        do throws(HTTPError) { encoding = try Self.bodyEncoding(head) } catch { return .respond(Response.error(error)) }
        // The update check's query, validated before a byte of the body is read or stored.
        var query: LatestResponder.Query?
        let sdkText = head.queryItem("sdk")
        if withUpdateCheck || sdkText != nil {
            do throws(HTTPError) { query = try LatestResponder.Query.parse(head) } catch { return .respond(Response.error(error)) }
        }
        // The route's label, with the sdk: every answer from here on is counted under it.
        if let sdkText, var label = exchange.label as? RequestLabel {
            label.sdk = sdkText
            exchange.label = label
        }
        let checkedQuery = query
        exchange.setBodyHandler { body, _ in
            let response = self.accept(body, encoding: encoding, query: checkedQuery, withUpdateCheck: withUpdateCheck, exchange: exchange)
            if let response { exchange.complete(response) }
        }
        return .collectBody(limit: limits.maxEventBodyBytes)
    }

    /// Validates and submits; returns an immediate error response, or nil when the commit will answer.
    private func accept(_ raw: [UInt8], encoding: Encoding, query: LatestResponder.Query?, withUpdateCheck: Bool,
                        exchange: Exchange) -> Response? {
        let body: [UInt8]
        do throws(HTTPError) { body = try inflated(raw, encoding) } catch { return Response.error(error) }
        let batch: EventBatch
        switch parseBatch(body, queryClientID: query?.clientID) {
        case .success(let parsed): batch = parsed
        case .failure(let refusal): return refusal.response
        }
        commit(batch, sdk: query?.sdkText, exchange: exchange, offLoop: withUpdateCheck && latest?.signing != nil) { events in
            respond(events: events, query: query, clientID: batch.clientID, withUpdateCheck: withUpdateCheck)
        }
        return nil
    }

    /// §4.2's batch validation, counting a rejected batch's events.
    func parseBatch(_ body: [UInt8], queryClientID: String?) -> Result<EventBatch, Refusal> {
        do throws(EventBatchError) {
            return .success(try BatchParser.parse(body, queryClientID: queryClientID, maxEventsPerBatch: limits.maxEventsPerBatch))
        } catch {
            store.noteRejected(events: error.eventCount)
            metrics.recordEvents(rejected: error.eventCount)
            return .failure(Refusal(response: Response.error(error.status, error.code, error.message)))
        }
    }

    /// Stores `batch` (durably, deduplicated: SPEC §4.2) and completes the exchange with
    /// `answer(events object)` once committed, or with the 503 when the store cannot. `offLoop`:
    /// the answer costs a signature per key, so it is made off the single commit thread and
    /// never delays the next group's fdatasync.
    func commit(_ batch: EventBatch, sdk: String?, exchange: Exchange, offLoop: Bool,
               answer: @escaping @Sendable ([UInt8]) -> Response) {
        metrics.recordEventBatch()
        store.submit(batch, sdk: sdk) { result in
            let events: [UInt8]
            switch result {
            case .accepted(let n):
                metrics.recordEvents(accepted: n)
                events = Array(#"{"accepted":\#(n),"duplicate":false}"#.utf8)
            case .duplicate:
                metrics.recordEvents(duplicate: batch.eventCount)
                events = Array(#"{"accepted":0,"duplicate":true}"#.utf8)
            case .unavailable(let why):
                var r = Response.error(503, "unavailable", "events not stored: \(why)")
                r.headers.append("Retry-After", "5")
                exchange.complete(r)
                return
            }
            if offLoop { BlockingWork.run { exchange.complete(answer(events)) } } else { exchange.complete(answer(events)) }
        }
    }

    /// `{"accepted":…}` alone, or the §4.1 document (or the 404 no_model error) with `"events"` spliced in.
    private func respond(events: [UInt8], query: LatestResponder.Query?, clientID: String?, withUpdateCheck: Bool) -> Response {
        let headers: HTTPFields = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        guard withUpdateCheck, let latest, var q = query else { return Response(headers: headers, body: events) }
        q.clientID = clientID ?? q.clientID
        if let a = latest.answerWithVersion(q) {
            // Signed per response: the events object makes every body different (runs on
            // BlockingWork after the fdatasync, never on a loop thread).
            let body = Self.splice(a.body.identity, events: events)
            var r = Response(headers: headers, body: body)
            r.sign(latest.signing?.stamp(body, catalog: a.catalog))
            return r
        }
        let error = ErrorBody.json(code: "no_model", message: "no release for sdk \(q.sdkText) on channel \(q.channel)")
        return Response(status: 404, headers: headers, body: Self.splice(error, events: events))
    }

    /// Appends `,"events":<events>` before the object's closing brace.
    static func splice(_ object: [UInt8], events: [UInt8]) -> [UInt8] {
        var out = object
        let close = out.lastIndex(of: UInt8(ascii: "}"))!
        out.removeSubrange(close...)
        out += Array(#","events":"#.utf8) + events + [UInt8(ascii: "}")]
        return out
    }

    /// `application/json`, optionally with parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1)[0].filter { $0 != " " && $0 != "\t" }
        return type.lowercased() == "application/json"
    }
}
