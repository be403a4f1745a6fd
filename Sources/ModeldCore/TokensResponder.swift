import AccessTokens
import HTTPServer
import HTTPWire
import JSONSupport
import ModelCatalog

/// `/admin/tokens` (SPEC §15.1), admin role only: list, create and revoke named tokens. The
/// book is `data/tokens.json`, shared by every replica; after a change this replica reads it
/// again at once, the others within their next poll.
struct TokensResponder: Sendable {
    let tokens: TokenCache

    /// `GET /admin/tokens` → `{"tokens":[{"name","role","created","expires","last_used"}]}`:
    /// read from the file, so it shows what every replica enforces. Never a secret or a hash.
    func list() -> Response {
        do throws(TokenBookError) {
            let book = try tokens.store.load()
            return json(200, Array(#"{"tokens":"#.utf8) + book.listingJSON + Array("}".utf8))
        } catch {
            return Self.errorResponse(error)
        }
    }

    /// `POST /admin/tokens` with `{"name":…,"role":…,"expires_days":D|null}` → 201 with the
    /// secret, the only time it is ever shown, and `Location: /admin/tokens/NAME`.
    func create(_ exchange: Exchange, _ caller: Caller) -> HeadDecision {
        exchange.setBodyHandler { [self] body, _ in
            let request: (name: String, role: Role, expiresDays: Int?)
            do throws(TokenBookError) { request = try Self.createRequest(body) } catch {
                return exchange.complete(Self.errorResponse(error))
            }
            BlockingWork.run { [self] in
                let secret = TokenBook.newSecret()
                do throws(TokenBookError) {
                    let token = try tokens.store.change { (book) throws(TokenBookError) -> NamedToken in
                        try book.add(name: request.name, role: request.role, secretSHA256: TokenBook.digest(secret),
                                     nowMillis: Timestamp.now().millisecondsSinceEpoch, expiresDays: request.expiresDays)
                    }
                    _ = tokens.refresh()
                    caller.record("token_create", token: token)
                    var r = json(201, Self.created(token, secret: secret))
                    r.headers.append("Location", "/admin/tokens/" + token.name)
                    exchange.complete(r)
                } catch {
                    exchange.complete(Self.errorResponse(error))
                }
            }
        }
        return .collectBody(limit: 4_096)
    }

    /// `DELETE /admin/tokens/NAME` → 200 with the entry as it was; the token opens nothing here
    /// from now on, and nothing on the other replicas from their next poll.
    func revoke(_ name: String, _ caller: Caller) -> Response {
        do throws(TokenBookError) {
            let token = try tokens.store.change { (book) throws(TokenBookError) -> NamedToken in try book.revoke(name) }
            _ = tokens.refresh()
            caller.record("token_revoke", token: token)
            return json(200, TokenBook.listing(token))
        } catch {
            return Self.errorResponse(error)
        }
    }

    static func createRequest(_ body: [UInt8]) throws(TokenBookError) -> (name: String, role: Role, expiresDays: Int?) {
        guard let root = try? JSONReader.parse(body), case .object(let members) = root.value else {
            throw TokenBookError(.invalid, "the body must be a JSON object {\"name\",\"role\",\"expires_days\"}")
        }
        if let unknown = members.first(where: { !["name", "role", "expires_days"].contains($0.key) }) {
            throw TokenBookError(.invalid, "\(unknown.key): unknown field")
        }
        guard let name = root.value["name"]?.stringValue else { throw TokenBookError(.invalid, "name: a string is required") }
        guard let role = root.value["role"]?.stringValue.flatMap(Role.init(rawValue:)) else {
            throw TokenBookError(.invalid, "role: must be admin, publisher or viewer")
        }
        var days: Int?
        if let node = root["expires_days"], !node.isNull {
            guard let d = node.value.numberValue, d == d.rounded(), abs(d) < 1e9 else {
                throw TokenBookError(.invalid, "expires_days: must be a whole number of days")
            }
            days = Int(d)
        }
        return (name, role, days)
    }

    /// SPEC §15.1's answer: `{"name","role","token","expires"}`, plus `created`.
    static func created(_ token: NamedToken, secret: String) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("name", token.name)
        w.field("role", token.role.rawValue)
        w.field("token", secret)
        w.field("created", Timestamp(millisecondsSinceEpoch: token.createdMillis).rfc3339)
        w.key("expires")
        if let e = token.expiresMillis { w.string(Timestamp(millisecondsSinceEpoch: e).rfc3339) } else { w.null() }
        w.endObject()
        return w.bytes
    }

    private func json(_ status: Int, _ body: [UInt8]) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: body)
    }

    static func errorResponse(_ e: TokenBookError) -> Response {
        var r = Response.error(e.httpStatus, e.code, e.message)
        if e.kind == .storage { r.headers.append("Retry-After", "5") }
        return r
    }
}
