extension JSONReader {
    /// The values of the top-level members named `names` (nil where absent), in that order, of
    /// the JSON object spanning the whole of `bytes`, without building the rest: for readers
    /// of many lines that need a few fields each (the guard evaluator tails every stored event).
    ///
    /// The same reader as `parse`, not a second one: the other members go through the same
    /// loops, validated and dropped. So it rejects exactly the texts `parse` rejects, with the
    /// same failure (bad strings, numbers, nesting, duplicate keys at any depth), and also a
    /// valid text that is not an object.
    public static func members(_ names: MemberNames, of bytes: ArraySlice<UInt8>) throws(Failure) -> [JSONValue?] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) -> [JSONValue?] in
            try wholeObject(buffer) { (reader) throws(Failure) -> [JSONValue?] in
                var values = [JSONValue?](repeating: nil, count: names.names.count)
                try reader.readObject(depth: 1) { (r, key) throws(Failure) in
                    let i = names.names.indices.first { r.key(key, is: names.names[$0], nameIsASCII: names.isASCII[$0]) }
                    if let i { values[i] = try r.parseValue(depth: 1).value } else { try r.skipValue(depth: 1) }
                }
                return values
            }
        }
    }

    /// `whole` for a text that must be an object: `object` reads it from its `{`. Anything else
    /// (rare: a foreign line) is parsed whole first, so an invalid text fails as in `parse`.
    static func wholeObject<T>(_ buffer: UnsafeBufferPointer<UInt8>, _ object: (inout JSONReader) throws(Failure) -> T) throws(Failure) -> T {
        try whole(buffer) { (reader) throws(Failure) -> T in
            guard reader.position < buffer.count, buffer[reader.position] == UInt8(ascii: "{") else {
                let start = reader.position
                _ = try reader.parseValue(depth: 0)
                throw Failure(offset: start, reason: "expected an object")
            }
            return try object(&reader)
        }
    }

    /// The member names a reader picks, with what matching needs worked out once (a reader
    /// calls `members` for every line it reads).
    public struct MemberNames: Sendable, ExpressibleByArrayLiteral {
        public let names: [String]
        /// Plain keys compare as bytes with ASCII names (every name a caller has).
        let isASCII: [Bool]

        public init(_ names: [String]) {
            self.names = names
            isASCII = names.map { $0.utf8.allSatisfy { $0 < 0x80 } }
        }

        public init(arrayLiteral names: String...) { self.init(names) }
    }
}
