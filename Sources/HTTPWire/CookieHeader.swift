/// Reading a `Cookie` request header (RFC 6265 §5.4: `name=value` pairs separated by `; `).
public enum CookieHeader {
    /// The value of the first cookie named `name`, or nil.
    public static func value(named name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard let eq = trimmed.firstIndex(of: "="), trimmed[..<eq] == name else { continue }
            var value = trimmed[trimmed.index(after: eq)...]
            while value.last == " " || value.last == "\t" { value = value.dropLast() }
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }
}
