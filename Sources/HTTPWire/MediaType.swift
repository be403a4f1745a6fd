/// The `type/subtype` of a Content-Type value, lowercased, as browsers read it (WHATWG MIME
/// Sniffing, "parse a MIME type"): what precedes the first `;`, spaces trimmed, both halves
/// RFC 9110 tokens. A value with a comma is refused: browsers split the header at commas and use
/// the last type, so `application/octet-stream, text/html` would be read as HTML.
public struct MediaType: Equatable, Sendable, CustomStringConvertible {
    public let type: String
    public let subtype: String

    public init?(contentType value: String) {
        let text = value.lowercased()
        guard !text.contains(",") else { return nil }
        var essence = text.prefix { $0 != ";" }.drop { $0 == " " }
        while essence.last == " " { essence = essence.dropLast() }
        guard let slash = essence.firstIndex(of: "/") else { return nil }
        let type = essence[..<slash], subtype = essence[essence.index(after: slash)...]
        guard Self.isToken(type), Self.isToken(subtype) else { return nil }
        self.type = String(type)
        self.subtype = String(subtype)
    }

    public var description: String { "\(type)/\(subtype)" }

    /// Whether a browser that navigates to a response of this type renders it as a document or
    /// runs it as script (SPEC §15.1): any `text/*` but `text/plain`; any XML (`*/xml`,
    /// `*/*+xml`: XHTML, SVG, feeds); the JavaScript types outside `text/`; `multipart/*`
    /// (x-mixed-replace parts and MHTML are shown as pages); `message/*` (web archives); PDF and
    /// Flash (documents with script of their own).
    public var isRenderedByBrowsers: Bool {
        switch type {
        case "text": subtype != "plain"
        case "multipart", "message": true
        default: subtype == "xml" || subtype.hasSuffix("+xml") || Self.renderedApplicationTypes.contains(description)
        }
    }

    private static let renderedApplicationTypes: Set<String> = [
        "application/javascript", "application/x-javascript", "application/ecmascript", "application/x-ecmascript",
        "application/pdf", "application/x-pdf", "application/x-shockwave-flash",
    ]

    private static func isToken(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy(ASCII.isToken) }
}
