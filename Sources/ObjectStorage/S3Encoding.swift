/// SigV4's URI encoding (AWS "UriEncode"): every byte outside `A-Z a-z 0-9 - . _ ~` becomes
/// uppercase `%XX`. libcurl 7.88 signs the path and query exactly as given, so the URL we send
/// must already be in this canonical form (reference/object-storage.md §1).
public enum S3Encoding {
    /// Encodes `text`; `/` is kept as is in object-key paths (S3 never normalises them).
    public static func uriEncode(_ text: String, keepingSlash: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                out.unicodeScalars.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// The canonical query string: names and values encoded, pairs sorted by encoded name then
    /// value, valueless parameters written `name=` (`?uploads` must go out as `?uploads=`).
    public static func canonicalQuery(_ items: [(name: String, value: String)]) -> String {
        items.map { (uriEncode($0.name), uriEncode($0.value)) }
            .sorted { $0.0 == $1.0 ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
}
