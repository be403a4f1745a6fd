extension JSONReader {
    /// The object spanning the whole of `bytes` with its array member `name` not built: the byte
    /// range of each element instead, every other member as a node. For a document of many
    /// entries whose reader decodes each on its own and can take one it already knows by its
    /// bytes (catalog.json at 10,000 releases, SPEC §17.1). The same loops as `parse`, so it
    /// rejects exactly what `parse` rejects, elements included (validated as they are skipped).
    /// `elements` is nil when `name` is absent or not an array (then it is among `members`).
    public static func object(_ bytes: [UInt8], listing name: String) throws(Failure)
        -> (members: [(key: String, node: JSONNode)], elements: [Range<Int>]?) {
        let nameIsASCII = name.utf8.allSatisfy { $0 < 0x80 }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in
            try wholeObject(buffer) { (reader) throws(Failure) in
                var members: [(key: String, node: JSONNode)] = []
                var elements: [Range<Int>]?
                try reader.readObject(depth: 1) { (r, key) throws(Failure) in
                    guard r.key(key, is: name, nameIsASCII: nameIsASCII), r.position < buffer.count,
                          buffer[r.position] == UInt8(ascii: "[") else {
                        members.append((r.string(key), try r.parseValue(depth: 1)))
                        return
                    }
                    var ranges: [Range<Int>] = []
                    try r.readArray(depth: 2) { (e) throws(Failure) in
                        let start = e.position
                        try e.skipValue(depth: 2)
                        ranges.append(start..<e.position)
                    }
                    elements = ranges
                }
                return (members, elements)
            }
        }
    }

    /// The value spanning exactly `range` of `bytes` (an element `object(_:listing:)` found),
    /// its nodes' ranges counted from the start of `bytes`.
    public static func parse(_ bytes: [UInt8], in range: Range<Int>) throws(Failure) -> JSONNode {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) -> JSONNode in
            var reader = JSONReader(bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), position: range.lowerBound)
            let node = try reader.parseValue(depth: 2)
            guard reader.position == range.upperBound else { throw reader.failure("unexpected data after the JSON value") }
            return node
        }
    }
}
