import ModelCatalog

/// What the start-up log (and a reload that changes the catalog's base) says about URLs: the
/// catalog's recorded base wins for serving (SPEC §9.1: answers equal the derived file), so a
/// configured `public_base_url` that differs is named together with it and the way out.
enum BaseURLNotice {
    static func warning(store: CatalogStore, catalog: Catalog) -> String? {
        let recorded = catalog.publicBaseURL
        if store.isFallbackBaseURL {
            guard let recorded else {
                return "public_base_url is not set; model URLs use \(store.publicBaseURL), derived from the bound address"
            }
            return "public_base_url is not set; model URLs use the catalog's base URL \(recorded)"
        }
        guard let recorded, recorded != store.publicBaseURL else { return nil }
        return "public_base_url \(store.publicBaseURL) differs from the catalog's base URL \(recorded): model URLs use "
            + "the catalog's, and publishing or changing releases through this server is refused (409 base_url_mismatch) "
            + "until they agree; to move the catalog run `modelctl catalog set-base-url \(store.publicBaseURL) --models-dir \(store.directory)`"
    }
}
