/// The rules an entry name must follow to be unpacked under a directory (after Go's
/// `archive/zip` `ErrInsecurePath`, stricter): relative, `/`-separated, no `..` or `.`
/// components, no empty components, no backslash or NUL.
enum ZipPath {
    /// The name's components (a directory's trailing `/` dropped), or a refusal naming why.
    static func components(of name: String) throws -> [Substring] {
        guard !name.isEmpty else { throw ZipError.unsafePath("empty name") }
        guard !name.hasPrefix("/") else { throw ZipError.unsafePath("absolute path '\(name)'") }
        guard !name.contains("\\"), !name.contains("\0") else { throw ZipError.unsafePath("'\(printable(name))' holds a backslash or NUL") }
        let body = name.hasSuffix("/") ? name.dropLast() : Substring(name)
        let parts = body.split(separator: "/", omittingEmptySubsequences: false)
        for part in parts {
            if part == ".." { throw ZipError.unsafePath("'\(name)' climbs out with ..") }
            if part.isEmpty || part == "." { throw ZipError.unsafePath("'\(name)' has an empty or . component") }
        }
        return parts
    }

    /// The name with control characters escaped, for messages.
    static func printable(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
    }
}
