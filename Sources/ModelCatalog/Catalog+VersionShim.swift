// TEMPORARY until branch `catalog` (catalog_version) is merged: removed at that merge.
extension Catalog {
    public var catalogVersion: Int64 { nextSeq - 1 }
}
