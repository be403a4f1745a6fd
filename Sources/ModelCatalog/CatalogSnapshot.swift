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
    /// `documentKey` → §4.1 document, for every active release and each of its live variants:
    /// one finished body per possible answer.
    public let documents: [String: [UInt8]]

    public init(catalog: Catalog, publicBaseURL: String) {
        self.catalog = catalog
        self.publicBaseURL = publicBaseURL
        var documents: [String: [UInt8]] = [:]
        for r in catalog.releases where r.state == .active {
            documents[Self.documentKey(r, nil)] = r.documentJSON(publicBaseURL: publicBaseURL)
            for v in r.variants where v.isLive {
                documents[Self.documentKey(r, v)] = r.documentJSON(publicBaseURL: publicBaseURL, variant: v)
            }
        }
        self.documents = documents
        latestDetails = catalog.latestDetailsJSON(publicBaseURL: publicBaseURL)
    }

    /// The key of an answer's pre-built body: the release id, or `<id>/<variant name>` (a name
    /// never contains `/`).
    public static func documentKey(_ release: Release, _ variant: Variant?) -> String {
        variant.map { release.id + "/" + $0.name } ?? release.id
    }

    public struct Answer: Sendable, Equatable {
        public let release: Release
        /// The variant answered instead of the release's own file (SPEC §3.1), if any.
        public let variant: Variant?
        public let documentKey: String
        public let document: [UInt8]
        /// `Cache-Control: private` when true (SPEC §4.1).
        public let dependsOnClientID: Bool
    }

    /// nil = no eligible release (404 `no_model`); `dependsOnClientID` of a 404 is reported by
    /// `select` if the route needs it.
    /// Selection is unchanged by `device` (SPEC §3.1): it only picks among the chosen release's files.
    public func latest(
        sdk: SDKVersion, channel: String = Release.defaultChannel, clientID: String?, device: DeviceAttributes = .none
    ) -> Answer? {
        let s = catalog.select(sdk: sdk, channel: channel, clientID: clientID)
        guard let r = s.release else { return nil }
        let v = device.isEmpty ? nil : r.variant(for: device)
        let key = Self.documentKey(r, v)
        return Answer(release: r, variant: v, documentKey: key,
                      document: documents[key] ?? r.documentJSON(publicBaseURL: publicBaseURL, variant: v),
                      dependsOnClientID: s.dependsOnClientID)
    }
}
