/// What the server holds per catalog version: the catalog plus every `/latest` body built once
/// (SPEC §4.1 documents and the derived file), so an update check is a selection and a lookup —
/// no JSON building per request. ETags and gzip variants belong to the HTTP layer, which can
/// compute them once per snapshot from these bytes.
public struct CatalogSnapshot: Sendable {
    public let catalog: Catalog
    public let publicBaseURL: String
    /// The bytes `GET /latest_model_details.json` (without `sdk`) answers when the server
    /// builds it itself rather than reading the publisher's file.
    public let latestDetails: [UInt8]
    private let documents: [String: [UInt8]]   // release id → §4.1 document, active releases only

    public init(catalog: Catalog, publicBaseURL: String) {
        self.catalog = catalog
        self.publicBaseURL = publicBaseURL
        var documents: [String: [UInt8]] = [:]
        for r in catalog.releases where r.state == .active {
            documents[r.id] = r.documentJSON(publicBaseURL: publicBaseURL)
        }
        self.documents = documents
        latestDetails = catalog.latestDetailsJSON(publicBaseURL: publicBaseURL)
    }

    public struct Answer: Sendable, Equatable {
        public let release: Release
        public let document: [UInt8]
        /// `Cache-Control: private` when true (SPEC §4.1).
        public let dependsOnClientID: Bool
    }

    /// nil = no eligible release (404 `no_model`); `dependsOnClientID` of a 404 is reported by
    /// `select` if the route needs it.
    public func latest(sdk: SDKVersion, channel: String = Release.defaultChannel, clientID: String?) -> Answer? {
        let s = catalog.select(sdk: sdk, channel: channel, clientID: clientID)
        guard let r = s.release else { return nil }
        return Answer(release: r, document: documents[r.id] ?? r.documentJSON(publicBaseURL: publicBaseURL),
                      dependsOnClientID: s.dependsOnClientID)
    }
}
