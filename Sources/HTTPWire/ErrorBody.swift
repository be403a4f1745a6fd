import JSONSupport

/// The one JSON error shape of SPEC §10: {"error":"<code>","message":"<text>"}.
public enum ErrorBody {
    public static let contentType = "application/json"

    public static func json(code: String, message: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":"#.utf8)
        JSONString.append(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        JSONString.append(message, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
