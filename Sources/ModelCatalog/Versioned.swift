/// A value together with the `catalog_version` it belongs to (SPEC §12): what a change made, in
/// the version that made it, so admin answers can say exactly which catalog holds the change.
/// Member access passes through (`change.id` is `change.value.id`).
@dynamicMemberLookup
public struct Versioned<Value: Sendable>: Sendable {
    public let value: Value
    public let catalogVersion: Int64

    public init(_ value: Value, catalogVersion: Int64) {
        self.value = value
        self.catalogVersion = catalogVersion
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T { value[keyPath: keyPath] }
}

extension Versioned: Equatable where Value: Equatable {}

extension Versioned where Value == Release {
    /// The admin form (`url` first) with `catalog_version` last: `POST`/`PATCH`/`DELETE` answers.
    public func adminJSON(publicBaseURL: String) -> [UInt8] {
        value.adminJSON(publicBaseURL: publicBaseURL, catalogVersion: catalogVersion)
    }
}
