import HTTPServer
import HTTPWire

/// `GET|HEAD /models/<id>.<ext>` (SPEC §4.3), its `.chunks` (§14), `.pack` and `.from-<id>.patch` (§16). The name is looked up in the catalog's table of
/// files, never joined to a path, so `..`, `%2e%2e`, `//`, NUL or extra segments cannot reach
/// anything: they are simply not catalog names.
struct ModelFileResponder: Sendable {
    let catalog: CatalogHolder

    /// SPEC §15.1: model bytes never run as the console's origin. A browser that opens a model
    /// file gets an opaque origin without script (`sandbox`) and never guesses a renderable type
    /// from the bytes (`nosniff`), whatever the release's content type says.
    static let isolationHeaders = [("Content-Security-Policy", "sandbox"), ("X-Content-Type-Options", "nosniff")]

    /// `response` with the isolation headers: every answer on `/models/`, errors and 405 included.
    static func isolated(_ response: Response) -> Response {
        var r = response
        for (name, value) in isolationHeaders { r.headers.append(name, value) }
        return r
    }

    /// `file`: the path after `/models/`, as it came.
    func respond(_ head: RequestHead, file name: String) -> Response {
        Self.isolated(answer(head, file: name))
    }

    private func answer(_ head: RequestHead, file name: String) -> Response {
        // A file the catalog names but that cannot be opened (deleted by hand, not yet
        // replicated) is not served.
        guard let model = catalog.served.files[name], let file = model.cell.open else {
            return Response.error(404, "not_found", "no such model file")
        }
        let h = head.headers
        let conditions = ConditionalHeaders(
            ifMatch: h["If-Match"], ifNoneMatch: h["If-None-Match"], ifModifiedSince: h["If-Modified-Since"],
            ifUnmodifiedSince: h["If-Unmodified-Since"], ifRange: h["If-Range"], range: h["Range"])
        let plan = RepresentationResponder.plan(method: head.method, request: conditions, representation: model.representation)
        var headers = HTTPFields()
        for (name, value) in plan.headers { headers.append(name, value) }
        let usesFile = plan.parts.contains { if case .file = $0 { true } else { false } }
        return Response(status: plan.status, headers: headers, parts: plan.parts,
                        file: usesFile ? file : nil, label: RequestLabel(route: .models, modelID: model.release.id))
    }
}
