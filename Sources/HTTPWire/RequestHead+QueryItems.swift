extension RequestHead {
    /// Every `name=value` item of the query, percent-decoded, in order; nil when an escape is
    /// malformed (a route then answers 400 rather than guess).
    public func queryItems() -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        for item in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let eq = item.firstIndex(of: UInt8(ascii: "=")) ?? item.endIndex
            guard let name = Self.percentDecoded(item[item.startIndex..<eq]) else { return nil }
            let value = eq == item.endIndex ? "" : Self.percentDecoded(item[item.index(after: eq)...])
            guard let value else { return nil }
            items.append((name, value))
        }
        return items
    }
}
