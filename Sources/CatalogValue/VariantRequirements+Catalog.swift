import JSONSupport
/// The catalog's text forms of `requires` (SPEC §3.1): parsed from the admin API's and
/// `modelctl variant add`'s text, written back as the catalog's JSON object.
extension VariantRequirements {
    /// `requires` as given to the admin API or `modelctl variant add`: a JSON object (first
    /// non-blank character `{`) or `key=value` pairs split by `,` with list values split by `|`
    /// (`min_ram_mb=7000,platform=ios|ipados`). Unknown keys, repeated keys and bad values are
    /// `invalid_parameter` naming `requires.<key>`; an empty text means "no conditions" (which
    /// `VariantRequest` refuses).
    public init(parsing text: String) throws(CatalogError) {
        if text.first(where: { !$0.isWhitespace }) == "{" {
            try self.init(json: Array(text.utf8))
            return
        }
        var fields: [String: String] = [:]
        // An empty pair is refused rather than skipped: `device_prefix=iPhone16,` means a prefix
        // ending in ',', which only the JSON form can say.
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let eq = pair.firstIndex(of: "=") else { throw CatalogError.invalid("requires", "\(pair) is not key=value") }
            let key = String(pair[..<eq]).trimmed
            guard Self.keys.contains(key) else { throw CatalogError.invalid("requires.\(key)", "unknown condition; allowed: \(Self.keys.joined(separator: ", "))") }
            guard fields[key] == nil else { throw CatalogError.invalid("requires.\(key)", "given twice") }
            fields[key] = String(pair[pair.index(after: eq)...]).trimmed
        }
        func list(_ key: String) -> [String]? {
            fields[key].map { $0.split(separator: "|", omittingEmptySubsequences: false).map { String($0).trimmed } }
        }
        var ram: Int?
        if let t = fields["min_ram_mb"] {
            guard let v = Int(t), String(v) == t else { throw CatalogError.invalid("requires.min_ram_mb", "must be an integer 0–10000000") }
            ram = v
        }
        self = try CatalogError.catching { () throws(InvalidInput) in
            try VariantRequirements(platform: list("platform"), minOS: fields["min_os"], minRAMMB: ram, devicePrefix: list("device_prefix"),
                                    systemModel: fields["system_model"])
        }
    }

    /// The catalog form: `{"platform":["ios"],"min_os":"17.0","min_ram_mb":7000,"device_prefix":["iPhone16,"]}`
    /// (written by `write(to:)`, ReleaseSelection).
    public init(json: [UInt8]) throws(CatalogError) {
        self = try decodeStrict(VariantRequirements.self, from: json,
                                otherwise: .invalid("requires", "must be a JSON object with \(Self.keys.joined(separator: ", "))"))
    }

    public var json: [UInt8] {
        var w = JSONWriter(capacity: 128)
        write(to: &w)
        return w.bytes
    }
}

extension String {
    fileprivate var trimmed: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
