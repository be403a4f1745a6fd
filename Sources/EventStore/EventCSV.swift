/// CSV rendering of stored events for `modelctl events export --format csv` (RFC 4180).
public enum EventCSV {
    public static let columns = ["received_at", "instance", "client_id", "batch_id", "seq", "sdk",
                                 "name", "ts", "model_id", "outcome", "value", "props"]

    public static var header: String { columns.joined(separator: ",") + "\r\n" }

    /// One record: strings as their value, other JSON values as their stored text, absent or null empty.
    public static func row(_ event: StoredEvent) -> String {
        columns.map { field(event, $0) }.joined(separator: ",") + "\r\n"
    }

    static func field(_ event: StoredEvent, _ name: String) -> String {
        let text: String
        switch event[name] {
        case nil, .null?: return ""
        case .string(let s)?: text = s
        default: text = String(decoding: event.rawJSON(name) ?? [], as: UTF8.self)
        }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
        var quoted = "\""
        for c in text { quoted += c == "\"" ? "\"\"" : String(c) }
        return quoted + "\""
    }
}
