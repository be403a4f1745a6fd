import HTTPWire

/// The methods a route answers. GET brings HEAD with it: the engine sends a HEAD answer without
/// its body, so a route never handles HEAD on its own.
public struct Methods: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let get = Methods(rawValue: 1 << 0)
    public static let post = Methods(rawValue: 1 << 1)
    public static let put = Methods(rawValue: 1 << 2)
    public static let patch = Methods(rawValue: 1 << 3)
    public static let delete = Methods(rawValue: 1 << 4)
    /// Any method, named above or not (a redirect, a catch-all 404): such a route is never 405.
    public static let all = Methods(rawValue: .max)
    @usableFromInline static let unnamed = Methods(rawValue: 1 << 7)

    /// The set a request's method falls in (methods are case-sensitive, RFC 9110 §9.1).
    @inlinable public init(requestMethod method: String) {
        switch method {
        case "GET", "HEAD": self = .get
        case "POST": self = .post
        case "PUT": self = .put
        case "PATCH": self = .patch
        case "DELETE": self = .delete
        default: self = .unnamed
        }
    }

    /// The `Allow` value (RFC 9110 §10.2.1), always in this order.
    public var allowHeader: String {
        let names: [(Methods, String)] = [(.get, "GET, HEAD"), (.post, "POST"), (.put, "PUT"), (.patch, "PATCH"), (.delete, "DELETE")]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// A path pattern: literal segments, `{name}` for one non-empty segment, and a final `{name...}`
/// for the rest of the path (`/` included, possibly empty). No normalisation (`..`, `//`, escapes
/// stay as they came); the parser admits only ASCII targets, so comparing is comparing bytes.
public struct PathPattern: Sendable, CustomStringConvertible {
    @usableFromInline enum Segment: Sendable {
        case literal(Substring)
        case parameter
    }

    /// As declared, e.g. `/admin/models/{id}/guard`.
    public let description: String
    @usableFromInline let segments: [Segment]
    /// Ends in `{name...}`.
    @usableFromInline let takesRest: Bool
    /// The whole pattern when it has no parameter: matched with one comparison.
    @usableFromInline let literal: String?

    public init(_ text: String) {
        precondition(text.hasPrefix("/"), "a path pattern starts with /: \(text)")
        description = text
        var pieces = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        takesRest = pieces.last!.hasPrefix("{") && pieces.last!.hasSuffix("...}")
        if takesRest { pieces.removeLast() }
        segments = pieces.map { piece in
            precondition(!piece.hasSuffix("...}"), "{name...} ends a pattern: \(text)")
            return piece.hasPrefix("{") && piece.hasSuffix("}") ? .parameter : .literal(piece)
        }
        let parameterFree = segments.allSatisfy { if case .literal = $0 { true } else { false } }
        literal = parameterFree && !takesRest ? text : nil
    }

    /// The parameters' values in pattern order, or nil when `path` does not match.
    @inlinable public func match(_ path: String) -> [Substring]? {
        if let literal { return path == literal ? [] : nil }
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        var remaining = path[path.index(after: path.startIndex)...]
        var parameters: [Substring] = []
        for (i, segment) in segments.enumerated() {
            let slash = remaining.utf8.firstIndex(of: UInt8(ascii: "/"))
            let piece = remaining[..<(slash ?? remaining.endIndex)]
            switch segment {
            case .literal(let expected): guard piece == expected else { return nil }
            case .parameter: guard !piece.isEmpty else { return nil }; parameters.append(piece)
            }
            if i == segments.count - 1 && !takesRest { return slash == nil ? parameters : nil }
            guard let slash else { return nil }
            remaining = remaining[remaining.utf8.index(after: slash)...]
        }
        parameters.append(remaining)   // only a pattern that takes the rest gets here
        return parameters
    }
}

/// One resource: its pattern, the handler for each set of methods it answers, and what every
/// answer on it shares: the label handed back in `ExchangeSummary` and an access rule the
/// application checks before anything else (even before a 405). A class: a match hands it on
/// with one retain.
public final class Route<Access: Sendable, Handler: Sendable>: Sendable {
    public struct MethodHandler: Sendable {
        public let methods: Methods
        public let handler: Handler
    }

    public let pattern: PathPattern
    public let label: any Sendable
    public let access: Access
    public let handlers: [MethodHandler]
    /// Every method some handler answers.
    public let methods: Methods
    /// Derived once, for the 405.
    public let allow: String

    public init(_ pattern: String, label: any Sendable, access: Access, _ handlers: KeyValuePairs<Methods, Handler>) {
        self.pattern = PathPattern(pattern)
        self.label = label
        self.access = access
        self.handlers = handlers.map { MethodHandler(methods: $0.key, handler: $0.value) }
        methods = handlers.reduce([]) { $0.union($1.key) }
        allow = methods.allowHeader
        precondition(handlers.count == 1 || handlers.allSatisfy { $0.key != .all }, "\(pattern): a route answering .all has no other handler")
    }

    /// 405 `method_not_allowed` (SPEC §10 body) with this resource's `Allow`.
    public func notAllowed() -> Response {
        var r = Response.error(405, "method_not_allowed", "allowed: \(allow)")
        r.headers.append("Allow", allow)
        return r
    }
}

/// The routes of a server in match order: the first pattern that matches the path owns the
/// request, so literal paths go before patterns that would also match them. Matching is a
/// scan with no allocation for literal paths: put the busiest first.
public struct RouteTable<Access: Sendable, Handler: Sendable>: Sendable {
    public let routes: [Route<Access, Handler>]

    public init(_ routes: [Route<Access, Handler>]) { self.routes = routes }

    public enum Match {
        case found(Route<Access, Handler>, Handler, parameters: [Substring])
        /// The path is a resource here, the method is not one it answers.
        case notAllowed(Route<Access, Handler>)
        case notFound
    }

    /// Inlinable so it is specialised for the caller's Access and Handler: unspecialised, each
    /// request built the generic `Match` payload through runtime metadata lookups.
    @inlinable public func match(method: String, path: String) -> Match {
        let requested = Methods(requestMethod: method)
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            for h in route.handlers where h.methods.contains(requested) {
                return .found(route, h.handler, parameters: parameters)
            }
            return .notAllowed(route)
        }
        return .notFound
    }
}
