// libFuzzer target: RequestParser on arbitrary bytes. Beyond "no crash", checks that the
// outcome does not depend on how the bytes arrive (one read vs. two), walks pipelined heads, and
// checks that the one-pass query lookups agree with the full item list.
import HTTPWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    bytes.withUnsafeBytes { all in
        var oneShot = RequestParser(maxHeaderBytes: 1024)
        let whole = oneShot.parse(all)

        // The same bytes in two reads, as a connection would present them.
        var split = RequestParser(maxHeaderBytes: 1024)
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        let early = split.parse(UnsafeRawBufferPointer(rebasing: all[0..<cut]))
        if early == .needMore {
            check(split.parse(all) == whole, "outcome depends on the read boundary at \(cut)")
        } else {
            check(early == whole, "a prefix decided differently from the whole buffer")
        }

        if case .head(let head, _) = whole { checkQuery(head) }

        // Pipelined heads: each must consume at least one byte and stay inside the buffer.
        var parser = RequestParser(maxHeaderBytes: 1024)
        var offset = 0
        while offset < all.count, case .head(_, let consumed) = parser.parse(UnsafeRawBufferPointer(rebasing: all[offset...])) {
            check(consumed > 0 && offset + consumed <= all.count, "consumed \(consumed) at \(offset)")
            offset += consumed
            parser.reset()
        }
    }
    return 0
}

/// When every item decodes, `queryItem` and `queryValues` give the first item of each name.
func checkQuery(_ head: RequestHead) {
    guard let items = head.queryItems() else { return }
    let names = Array(Set(items.map(\.name)).prefix(64))
    var found = [String?](repeating: nil, count: names.count)
    head.queryValues(QueryNames(names)) { i, v in found[i] = v }
    for (i, name) in names.enumerated() {
        let first = items.first { $0.name == name }?.value
        check(head.queryItem(name) == first && found[i] == first, "query lookups disagree on '\(name)'")
    }
}
