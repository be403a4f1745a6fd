import HTTPWire
import JSONSupport
import ModelCatalog

/// The body of `POST /check` (SPEC §17.2) without its event batch, validated without I/O:
/// `channels` 1–256 distinct names, `installed` (channel → SHA-256 of the installed model),
/// `client_id`. Whether a batch rides along is all it says of `batch_id`/`events`: §4.2's
/// parser validates those.
struct CheckRequest: Equatable {
    static let maxChannels = 256

    var channels: [String]
    var installed: [String: String] = [:]
    var clientID: String?
    /// The body names `batch_id` or `events`.
    var hasBatch = false

    static func parse(_ body: [UInt8]) throws(HTTPError) -> CheckRequest {
        let root: JSONNode
        do { root = try JSONReader.parse(body) } catch {
            throw HTTPError(400, "invalid_json", "\(error.reason) at byte \(error.offset)")
        }
        guard case .object = root.value else { throw HTTPError(400, "invalid_json", "the body must be a JSON object") }
        var request = CheckRequest(channels: try channels(root.value["channels"]))
        if let installed = root.value["installed"] { request.installed = try Self.installed(installed) }
        if let value = root.value["client_id"] {
            guard let s = value.stringValue, ClientID.isValid(s) else {
                throw invalid("client_id", "must be 1-128 printable ASCII characters")
            }
            request.clientID = s
        }
        request.hasBatch = root.value["batch_id"] != nil || root.value["events"] != nil
        return request
    }

    private static func channels(_ value: JSONValue?) throws(HTTPError) -> [String] {
        let rule = "an array of 1-\(maxChannels) distinct channel names [a-z0-9_-]{1,32}"
        guard case .array(let items)? = value, (1...maxChannels).contains(items.count) else {
            throw invalid("channels", "required, \(rule)")
        }
        var names: [String] = []
        var seen = Set<String>()
        for (i, item) in items.enumerated() {
            guard let name = item.value.stringValue, NameRule.matches(name) else {
                throw invalid("channels", "[\(i)] is not a channel name: \(rule)")
            }
            guard seen.insert(name).inserted else { throw invalid("channels", "\(name) is listed twice: \(rule)") }
            names.append(name)
        }
        return names
    }

    private static func installed(_ value: JSONValue) throws(HTTPError) -> [String: String] {
        guard case .object(let members) = value else { throw invalid("installed", "must be an object of channel → sha256") }
        var out: [String: String] = [:]
        for m in members {
            guard NameRule.matches(m.key) else { throw invalid("installed", "\(m.key) is not a channel name") }
            guard let sha = m.node.value.stringValue, isSHA256(sha) else {
                throw invalid("installed", "\(m.key) must be 64 lowercase hex characters")
            }
            out[m.key] = sha
        }
        return out
    }

    private static func isSHA256(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func invalid(_ field: String, _ message: String) -> HTTPError {
        HTTPError(400, "invalid_parameter", "\(field): \(message)")
    }
}
