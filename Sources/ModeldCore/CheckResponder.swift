import EventStore
import HTTPServer
import HTTPWire
import ModelCatalog

/// `POST /check` (SPEC §17.2): one update check for every channel an app serves, with an
/// optional event batch. Each answer is the `/latest` document for that channel and the same
/// parameters, selected through `LatestResponder.answer` from one catalog version, so the
/// whole answer is signed like `/latest` (§12 headers over the body). The body follows §4.2's
/// media type, encodings and limits, and a batch is stored durably before the answer.
struct CheckResponder: Sendable {
    let events: EventsResponder
    let latest: LatestResponder

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        let encoding: EventsResponder.Encoding
        let query: LatestResponder.Query
        do throws(HTTPError) {
            encoding = try EventsResponder.bodyEncoding(head)
            query = try LatestResponder.Query.parse(head)
        } catch { return .respond(Response.error(error)) }
        exchange.label = RequestLabel(route: .check, sdk: query.sdkText)
        let gzip = AcceptEncoding.allowsGzip(head.headers["Accept-Encoding"])
        exchange.setBodyHandler { raw, _ in
            if let response = self.accept(raw, encoding: encoding, query: query, gzip: gzip, exchange: exchange) { exchange.complete(response) }
        }
        return .collectBody(limit: events.limits.maxEventBodyBytes)
    }

    /// Validates the whole body first (nothing is stored for a bad one); nil when the event
    /// commit will answer.
    private func accept(_ raw: [UInt8], encoding: EventsResponder.Encoding, query: LatestResponder.Query, gzip: Bool,
                        exchange: Exchange) -> Response? {
        let body: [UInt8], request: CheckRequest
        do throws(HTTPError) {
            body = try events.inflated(raw, encoding)
            request = try CheckRequest.parse(body)
        } catch { return Response.error(error) }
        var rollout = query
        rollout.clientID = request.clientID ?? query.clientID
        let q = rollout
        guard request.hasBatch else {
            if latest.signing == nil { return answer(request, q, events: nil, gzip: gzip) }
            BlockingWork.run { exchange.complete(answer(request, q, events: nil, gzip: gzip)) }   // a signature per key
            return nil
        }
        switch events.parseBatch(body, queryClientID: q.clientID) {
        case .failure(let refusal): return refusal.response
        case .success(let batch):
            events.commit(batch, sdk: query.sdkText, exchange: exchange, offLoop: latest.signing != nil) { stored in
                answer(request, q, events: stored, gzip: gzip)
            }
            return nil
        }
    }

    /// `{"answers":{channel: document | null, …}[, "events": …]}` from one catalog version.
    func answer(_ request: CheckRequest, _ query: LatestResponder.Query, events stored: [UInt8]?, gzip: Bool) -> Response {
        let served = latest.catalog.served
        var body = Array(#"{"answers":{"#.utf8)
        var q = query
        // `installed` reports each channel's model: the bases of §3.2 (a pinned adapter goes only
        // to a check whose installed base matches, as `base=` does on /latest).
        q.bases = ReportedBases(anyChannel: query.bases.anyChannel, installed: request.installed)
        for (i, channel) in request.channels.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            body += Array("\"\(channel)\":".utf8)   // a channel name needs no escaping
            q.channel = channel
            if let a = LatestResponder.answer(q, in: served) { body += a.body.identity } else { body += Array("null".utf8) }
        }
        body.append(UInt8(ascii: "}"))
        if let stored { body += Array(#","events":"#.utf8) + stored }
        body.append(UInt8(ascii: "}"))
        var headers: HTTPFields = ["Content-Type": "application/json", "Cache-Control": "no-store", "Vary": "Accept-Encoding"]
        if gzip { headers.append("Content-Encoding", "gzip") }
        var r = Response(headers: headers, body: gzip ? Gzip.compress(body) : body)
        r.sign(latest.signing?.stamp(body, catalog: served.catalogVersion))
        return r.labelled(RequestLabel(route: .check, sdk: query.sdkText, checks: request.channels.count))
    }
}
