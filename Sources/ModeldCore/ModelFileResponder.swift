import HTTPServer
import HTTPWire

/// `GET|HEAD /models/<id>.<ext>` (SPEC §4.3) and `/models/<id>.<ext>.chunks` (SPEC §14). The name is looked up in the catalog's table of
/// files, never joined to a path, so `..`, `%2e%2e`, `//`, NUL or extra segments cannot reach
/// anything: they are simply not catalog names.
struct ModelFileResponder: Sendable {
    let catalog: CatalogHolder

    /// `file`: the path after `/models/`, as it came.
    func respond(_ head: RequestHead, file name: String) -> Response {
        guard let model = catalog.served.files[name] else {
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
                        file: usesFile ? model.file : nil, label: RequestLabel(route: .models, modelID: model.release.id))
    }
}
