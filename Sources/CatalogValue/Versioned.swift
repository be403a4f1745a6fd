/// A value together with the catalog version it belongs to (SPEC §12) and that version's base URL:
/// what a change made, in the version that made it, so admin answers say exactly which catalog
/// holds the change and build `url` from that catalog's base. Member access passes through
/// (`change.id` is `change.value.id`).
@dynamicMemberLookup
public struct Versioned<Value: Sendable>: Sendable {
    public let value: Value
    public let catalogVersion: Int64
    public let publicBaseURL: String

    public init(_ value: Value, catalogVersion: Int64, publicBaseURL: String) {
        self.value = value
        self.catalogVersion = catalogVersion
        self.publicBaseURL = publicBaseURL
    }

    /// `value` in `catalog` as a writer left it (its base recorded).
    package init(_ value: Value, in catalog: Catalog) {
        self.init(value, catalogVersion: catalog.catalogVersion, publicBaseURL: catalog.publicBaseURL ?? "")
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T { value[keyPath: keyPath] }
}

extension Versioned: Equatable where Value: Equatable {}

extension Versioned where Value == Release {
    /// The admin form (`url` first) with `catalog_version` last: `POST`/`PATCH`/`DELETE` answers.
    public func adminJSON() -> [UInt8] {
        value.adminJSON(publicBaseURL: publicBaseURL, catalogVersion: catalogVersion)
    }
}
