/// The validated parameters of adding a variant (`POST /admin/models/ID/variants?…`,
/// `modelctl variant add`).
public struct VariantRequest: Equatable, Sendable {
    public let name: String
    public let requires: VariantRequirements
    public let ext: String

    public init(name: String, requires: String, ext: String) throws(CatalogError) {
        try Variant.validateName(name)
        self.requires = try VariantRequirements(parsing: requires)
        // Without conditions it would replace the release's file for every device: that is a new release.
        guard !self.requires.isEmpty else { throw .invalid("requires", "needs at least one of \(VariantRequirements.keys.joined(separator: ", "))") }
        try Release.validateExt(ext)
        self.name = name
        self.ext = ext
    }

    /// From the admin API's query: `name`, `requires` and `ext`, all required.
    /// Unknown names are refused, like publish's.
    public init(parameters: [String: String]) throws(CatalogError) {
        let known: Set<String> = ["name", "requires", "ext"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalid(unknown, "unknown parameter")
        }
        guard let name = parameters["name"] else { throw .invalid("name", "is required") }
        guard let requires = parameters["requires"] else { throw .invalid("requires", "is required") }
        guard let ext = parameters["ext"] else { throw .invalid("ext", "is required") }
        try self.init(name: name, requires: requires, ext: ext)
    }
}
