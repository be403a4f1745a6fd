import HTTPServer
import HTTPWire
import ModelCatalog

/// `GET|HEAD /latest` and `/latest_model_details.json` (SPEC §4.1): a selection over the current
/// catalog and a pre-built body; per request only the small head is assembled.
struct LatestResponder: Sendable {
    let catalog: CatalogHolder
    let maxAgeSeconds: Int
    /// For POST /latest, whose body differs per request (SPEC §12; docs/decisions/signing.md).
    var signing: Signing?

    /// The parsed query of an update check, or the 400 to answer.
    struct Query: Sendable {
        var sdk: SDKVersion
        var sdkText: String
        var channel: String
        var clientID: String?
        var device: DeviceAttributes
        /// `base=` (SPEC §3.2): the base model the device has, for adapter releases.
        var bases: ReportedBases

        static func parse(_ head: RequestHead) throws(HTTPError) -> Query { try parse(Parameters(head)) }

        // Typed throws, not Result: a Result's map copies its payload through value witnesses,
        // which on this path is a dozen retains per update check.
        fileprivate static func parse(_ p: Parameters) throws(HTTPError) -> Query {
            guard let text = p.sdk, let sdk = SDKVersion(text) else {
                throw HTTPError(400, "invalid_sdk", "sdk must be MAJOR[.MINOR[.PATCH]] with numeric components 0-999999")
            }
            let v = try p.validated()
            return Query(sdk: sdk, sdkText: text, channel: v.channel, clientID: v.clientID, device: v.device, bases: v.bases)
        }
    }

    /// The raw values an update check reads, from one pass over the query (first occurrence
    /// of each wins; a value with a malformed escape counts as absent, as with queryItem).
    fileprivate struct Parameters {
        var sdk, channel, clientID, platform, os, ramMB, device, systemModel, base: String?

        private static let names = QueryNames(["sdk", "channel", "client_id", "platform", "os", "ram_mb", "device", "system_model", "base"])

        init(_ head: RequestHead) {
            head.queryValues(Self.names) { i, value in
                switch i {
                case 0: sdk = value
                case 1: channel = value
                case 2: clientID = value
                case 3: platform = value
                case 4: os = value
                case 5: ramMB = value
                case 6: device = value
                case 7: systemModel = value
                default: base = value
                }
            }
        }

        /// Everything but `sdk`, checked (a concrete struct rather than a tuple: no generic
        /// metadata instantiated per request).
        struct Validated {
            var channel = Release.defaultChannel
            var clientID: String?
            var device = DeviceAttributes.none
            var bases = ReportedBases.none
        }

        func validated() throws(HTTPError) -> Validated {
            var v = Validated()
            if let channel {
                // The validator's own message is replaced by the §4.1 wording.
                guard (try? Release.validateChannel(channel)) != nil else {
                    throw HTTPError(400, "invalid_parameter", "channel must match [a-z0-9_-]{1,32}")
                }
                v.channel = channel
            }
            if let clientID {
                guard ClientID.isValid(clientID) else {
                    throw HTTPError(400, "invalid_parameter", "client_id must be 1-128 printable ASCII characters")
                }
                v.clientID = clientID
            }
            guard platform != nil || os != nil || ramMB != nil || device != nil || systemModel != nil || base != nil else { return v }
            do throws(InvalidInput) {
                v.device = try DeviceAttributes(parsing: platform, os: os, ramMB: ramMB, device: device, systemModel: systemModel)
                v.bases = try ReportedBases(parsingBase: base)
                return v
            } catch {
                throw HTTPError(400, "invalid_parameter", error.description)
            }
        }
    }

    /// `GET /latest`.
    func respond(_ head: RequestHead) -> Response { check(Parameters(head), head) }

    /// `GET /latest_model_details.json`: with `sdk`, the update check; without, the derived file.
    /// Separate routes, so neither compares the path again.
    func respondDetails(_ head: RequestHead) -> Response {
        let parameters = Parameters(head)
        guard parameters.sdk == nil else { return check(parameters, head) }
        // `channel`, `client_id` and the device attributes are checked in every form, the
        // derived file's included: a malformed parameter is a client bug either way.
        do throws(HTTPError) { _ = try parameters.validated() } catch { return Response.error(error) }
        // Unsigned (SPEC §12): latest_model_details.sig.json covers these bytes.
        return document(catalog.served.details, head: head, cacheControl: "public, max-age=\(maxAgeSeconds)")
    }

    private func check(_ parameters: Parameters, _ head: RequestHead) -> Response {
        let q: Query
        do throws(HTTPError) { q = try Query.parse(parameters) } catch { return Response.error(error) }
        let label = RequestLabel(route: .latest, sdk: q.sdkText)
        guard let (body, privately) = answer(q) else {
            return Response.error(404, "no_model", "no release for sdk \(q.sdkText) on channel \(q.channel)").labelled(label)
        }
        let scope = privately ? "private" : "public"
        return document(body, head: head, cacheControl: "\(scope), max-age=\(maxAgeSeconds)").labelled(label)
    }

    /// The chosen release's bodies, and whether the answer depended on client_id.
    func answer(_ q: Query) -> (ServedCatalog.LatestBody, Bool)? {
        answerWithVersion(q).map { ($0.body, $0.privately) }
    }

    /// `answer` plus the catalog version it was selected from (what a POST signature names).
    func answerWithVersion(_ q: Query) -> (body: ServedCatalog.LatestBody, privately: Bool, catalog: Int64)? {
        let served = catalog.served
        return Self.answer(q, in: served).map { ($0.body, $0.privately, served.catalogVersion) }
    }

    /// The one selection entry point of every update check (GET and POST /latest, and each
    /// channel of POST /check, which selects all its channels from one `served`).
    static func answer(_ q: Query, in served: ServedCatalog) -> (body: ServedCatalog.LatestBody, privately: Bool)? {
        served.answer(sdk: q.sdk, channel: q.channel, clientID: q.clientID, device: q.device, bases: q.bases)
    }

    /// 200 or 304 for one of the two encodings, with its own ETag.
    private func document(_ body: ServedCatalog.LatestBody, head: RequestHead, cacheControl: String) -> Response {
        let gzip = AcceptEncoding.allowsGzip(head.headers["Accept-Encoding"])
        let etag = gzip ? body.gzipETag : body.identityETag
        var headers: HTTPFields = ["ETag": etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding"]
        if GeneratedBodyETag.isNotModified(head, tag: gzip ? body.prepared.gzipTag : body.prepared.identityTag) {
            var r = Response(status: 304, headers: headers)
            r.sign(body.stamp)
            return r
        }
        headers.append("Content-Type", "application/json")
        if gzip { headers.append("Content-Encoding", "gzip") }
        var r = Response(headers: headers, body: gzip ? body.gzip : body.identity)
        r.sign(body.stamp)
        return r
    }
}

/// `Accept-Encoding` (RFC 9110 §12.5.3): gzip is acceptable when listed (or `*`) without q=0.
enum AcceptEncoding {
    static func allowsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        var gzip: Bool?
        var star: Bool?
        for item in value.split(separator: ",") {
            let parts = item.split(separator: ";")
            let coding = parts[0].trimmingCharacters(in: " \t").lowercased()
            var allowed = true
            for p in parts.dropFirst() {
                let kv = p.trimmingCharacters(in: " \t").lowercased()
                if kv.hasPrefix("q="), let q = Double(kv.dropFirst(2)) { allowed = q > 0 }
            }
            if coding == "gzip" || coding == "x-gzip" { gzip = allowed } else if coding == "*" { star = allowed }
        }
        return gzip ?? star ?? false
    }
}

/// client_id: 1–128 printable ASCII characters (SPEC §4.2).
enum ClientID {
    static func isValid(_ s: String) -> Bool {
        let u = s.utf8
        return (1...128).contains(u.count) && u.allSatisfy { (0x20...0x7e).contains($0) }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        return String(drop(while: { chars.contains($0) }).reversed().drop(while: { chars.contains($0) }).reversed())
    }
}
