/// A tolerant reader for the small XML documents S3 answers with: elements, text, entities,
/// CDATA; declarations, comments and processing instructions are skipped, attributes and
/// namespace prefixes ignored. Callers look children up by name, never by position, because
/// stores order elements differently (moto puts `UploadId` before `Key`, RGW after).
public struct XMLElement: Sendable, Equatable {
    /// The local name (any `prefix:` removed).
    public let name: String
    public let children: [XMLElement]
    /// The element's own character data, entities decoded (empty for pure containers).
    public let text: String

    public func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }
    public func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }
    /// Text of the first child called `name`.
    public func value(_ name: String) -> String? { child(name)?.text }

    /// Parses a whole document and returns its root element.
    public static func parse(_ bytes: [UInt8]) throws(S3Error) -> XMLElement {
        var scanner = XMLScanner(bytes: bytes)
        return try scanner.document()
    }

    /// Escapes text for element content or a double-quoted attribute.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Recursive descent over the bytes; depth is bounded so a hostile body cannot exhaust the stack.
private struct XMLScanner {
    let bytes: [UInt8]
    var position = 0
    static let maxDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(S3Error) -> XMLElement {
        try skipMisc()
        guard peek(UInt8(ascii: "<")) else { throw fail("no root element") }
        let root = try element(depth: 0)
        try skipMisc()
        guard position == bytes.count else { throw fail("content after the root element") }
        return root
    }

    /// Whitespace, `<?…?>`, `<!--…-->` and `<!DOCTYPE…>` between elements.
    mutating func skipMisc() throws(S3Error) {
        while true {
            while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
            if starts("<?") { try skip(past: "?>") } else if starts("<!--") { try skip(past: "-->") } else if starts("<!") && !starts("<![CDATA[") { try skip(past: ">") } else { return }
        }
    }

    mutating func element(depth: Int) throws(S3Error) -> XMLElement {
        guard depth < Self.maxDepth else { throw fail("elements nested too deeply") }
        position += 1  // "<"
        let name = readName()
        guard !name.isEmpty else { throw fail("element without a name") }
        // Attributes are skipped, honouring quotes so a '>' inside a value does not end the tag.
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote { if byte == open { quote = nil } } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { quote = byte } else if byte == UInt8(ascii: ">") { break }
            position += 1
        }
        guard position < bytes.count else { throw fail("unterminated tag <\(name)>") }
        position += 1
        if bytes[position - 2] == UInt8(ascii: "/") { return XMLElement(name: Self.localName(name), children: [], text: "") }
        var children: [XMLElement] = []
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw fail("unterminated element <\(name)>") }
            if starts("</") {
                position += 2
                let closing = readName()
                guard closing == name else { throw fail("</\(closing)> closes <\(name)>") }
                while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
                guard peek(UInt8(ascii: ">")) else { throw fail("malformed </\(name)>") }
                position += 1
                return XMLElement(name: Self.localName(name), children: children, text: String(decoding: text, as: UTF8.self))
            } else if starts("<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>")
                text += bytes[start..<(position - 3)]
            } else if starts("<!--") || starts("<?") {
                try skipMisc()
            } else if peek(UInt8(ascii: "<")) {
                children.append(try element(depth: depth + 1))
            } else if peek(UInt8(ascii: "&")) {
                text += try entity()
            } else {
                text.append(bytes[position])
                position += 1
            }
        }
    }

    mutating func entity() throws(S3Error) -> [UInt8] {
        guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("unterminated entity") }
        let name = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        position = end + 1
        switch name {
        case "amp": return Array("&".utf8)
        case "lt": return Array("<".utf8)
        case "gt": return Array(">".utf8)
        case "quot": return Array("\"".utf8)
        case "apos": return Array("'".utf8)
        default:
            let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16)
                : name.hasPrefix("#") ? UInt32(name.dropFirst(), radix: 10) : nil
            guard let number, let scalar = Unicode.Scalar(number) else { throw fail("unknown entity &\(name);") }
            return Array(String(Character(scalar)).utf8)
        }
    }

    mutating func readName() -> String {
        let start = position
        while position < bytes.count, !Self.isSpace(bytes[position]),
              bytes[position] != UInt8(ascii: ">"), bytes[position] != UInt8(ascii: "/") { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func skip(past terminator: String) throws(S3Error) {
        let pattern = Array(terminator.utf8)
        while position + pattern.count <= bytes.count {
            if bytes[position..<(position + pattern.count)].elementsEqual(pattern) { position += pattern.count; return }
            position += 1
        }
        throw fail("unterminated markup (expected \(terminator))")
    }

    func starts(_ prefix: String) -> Bool { bytes[position...].starts(with: prefix.utf8) }
    func peek(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }
    func fail(_ reason: String) -> S3Error { .invalidResponse("XML: \(reason) at byte \(position)") }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    static func localName(_ name: String) -> String {
        name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }
}
