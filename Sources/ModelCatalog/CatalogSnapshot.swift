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
    /// §4.1 document for every active release and each of its live variants: one finished
    /// body per possible answer.
    public let documents: [DocumentKey: [UInt8]]

    public init(catalog: Catalog, publicBaseURL: String) {
        self.catalog = catalog
        self.publicBaseURL = publicBaseURL
        var documents: [DocumentKey: [UInt8]] = [:]
        for r in catalog.releases where r.state == .active {
            documents[DocumentKey(seq: r.seq, variant: nil)] = r.documentJSON(publicBaseURL: publicBaseURL)
            for (i, v) in r.variants.enumerated() where v.isLive {
                documents[DocumentKey(seq: r.seq, variant: i)] = r.documentJSON(publicBaseURL: publicBaseURL, variant: v)
            }
        }
        self.documents = documents
        latestDetails = catalog.latestDetailsJSON(publicBaseURL: publicBaseURL)
    }

    /// Names an answer's pre-built body by integers, so the per-request lookup builds and hashes
    /// no strings: the release's seq (unique, never reused) and the variant's index in it.
    public struct DocumentKey: Hashable, Sendable {
        public let seq: Int64
        /// Index into `release.variants`; nil = the release's own file.
        public let variant: Int?
    }

    public struct Answer: Sendable, Equatable {
        public let release: Release
        public let key: DocumentKey
        /// The variant answered instead of the release's own file (SPEC §3.1), if any; looked
        /// up on demand so the hot path copies no variant.
        public var variant: Variant? { key.variant.map { release.variants[$0] } }
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
        let dependsOnClientID = s.dependsOnClientID  // read first: keeping `s` alive copies it
        guard let r = s.release else { return nil }
        let key = DocumentKey(seq: r.seq, variant: r.variantIndex(for: device))
        return Answer(release: r, key: key, dependsOnClientID: dependsOnClientID)
    }

    /// The §4.1 body of `answer`.
    public func document(_ answer: Answer) -> [UInt8] {
        documents[answer.key] ?? answer.release.documentJSON(publicBaseURL: publicBaseURL, variant: answer.variant)
    }
}
