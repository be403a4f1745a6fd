/// Parses a block of field lines (`name: value CRLF`…, without the final empty line) shared by
/// the request head and chunked trailers. Strict per RFC 9112 §5: no obs-fold, no whitespace
/// before the colon, token names, no control characters (bare CR included) in values.
enum FieldLines {
    static let maxFields = 100

    /// `block` holds the lines, each ending in CRLF.
    static func parse(_ block: UnsafeRawBufferPointer.SubSequence, into fields: inout HTTPFields) -> HTTPError? {
        var lineStart = block.startIndex
        while lineStart < block.endIndex {
            guard let lf = block[lineStart...].index(ofByte: ASCII.lf), lf > lineStart, block[lf - 1] == ASCII.cr else {
                return .badRequest("field line not terminated by CRLF")
            }
            if let e = parseLine(block[lineStart..<(lf - 1)], into: &fields) { return e }
            if fields.count > maxFields { return .headersTooLarge("more than \(maxFields) header fields") }
            lineStart = lf + 1
        }
        return nil
    }

    private static func parseLine(_ line: UnsafeRawBufferPointer.SubSequence, into fields: inout HTTPFields) -> HTTPError? {
        guard let first = line.first else { return .badRequest("empty field line") }
        if ASCII.isWhitespace(first) { return .badRequest("obsolete line folding is not accepted") }
        guard let colon = line.index(ofByte: ASCII.colon) else { return .badRequest("field line without a colon") }
        let name = line[line.startIndex..<colon]
        if let last = name.last, ASCII.isWhitespace(last) { return .badRequest("whitespace before the colon of a field name") }
        guard !name.isEmpty, UnsafeRawBufferPointer(rebasing: name).allSatisfy(ASCII.isToken) else {
            return .badRequest("invalid character in a field name")
        }
        var vs = colon + 1, ve = line.endIndex
        while vs < ve, ASCII.isWhitespace(line[vs]) { vs += 1 }
        while ve > vs, ASCII.isWhitespace(line[ve - 1]) { ve -= 1 }
        let value = line[vs..<ve]
        guard UnsafeRawBufferPointer(rebasing: value).allSatisfy(ASCII.isFieldValueByte) else { return .badRequest("control character in a field value") }
        fields.append(String(decoding: UnsafeRawBufferPointer(rebasing: name), as: UTF8.self),
                      String(decoding: UnsafeRawBufferPointer(rebasing: value), as: UTF8.self))
        return nil
    }
}
