/// What the server holds per catalog version for selection: the catalog, its releases indexed
/// by channel (SPEC §17.1: built once per version, so an update check reads only its own
/// channel) and the derived file's bytes. Bodies are built from the answer on demand; the HTTP
/// layer prepares and keeps them (ETags, gzip, signatures) per answer it actually gives.
public struct CatalogSnapshot: Sendable {
    public let catalog: Catalog
    public let publicBaseURL: String
    /// The bytes `GET /latest_model_details.json` (without `sdk`) answers when the server
    /// builds it itself rather than reading the publisher's file.
    public let latestDetails: [UInt8]
    private let index: ChannelIndex<Release>

    public init(catalog: Catalog, publicBaseURL: String) {
        self.catalog = catalog
        self.publicBaseURL = publicBaseURL
        index = ChannelIndex(catalog.releases)
        latestDetails = catalog.latestDetailsJSON(publicBaseURL: publicBaseURL)
    }

    /// Names an answer's body by integers, so the per-request lookup builds and hashes no
    /// strings: the release's seq (unique, never reused) and the variant's index in it.
    public struct DocumentKey: Hashable, Sendable {
        public let seq: Int64
        /// Index into `release.variants`; nil = the release's own file.
        public let variant: Int?

        public init(seq: Int64, variant: Int?) {
            self.seq = seq
            self.variant = variant
        }
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

    /// The one selection entry point of the server (SPEC §4.1, §17.2): what an update check for
    /// (`sdk`, `channel`, `clientID`, `device`) gets at this version; nil = no eligible release
    /// (404 `no_model`). Reads only `channel`'s releases, through the index.
    /// Selection is unchanged by `device` (SPEC §3.1): it only picks among the chosen release's files.
    public func latest(
        sdk: SDKVersion, channel: String = Release.defaultChannel, clientID: String?, device: DeviceAttributes = .none,
        bases: ReportedBases = .none
    ) -> Answer? {
        let s = index.select(sdk: sdk, channel: channel, clientID: clientID, bases: bases)
        let dependsOnClientID = s.dependsOnClientID  // read first: keeping `s` alive copies it
        guard let r = s.release else { return nil }
        let key = DocumentKey(seq: r.seq, variant: r.variantIndex(for: device))
        return Answer(release: r, key: key, dependsOnClientID: dependsOnClientID)
    }

    /// The §4.1 body of `answer`.
    public func document(_ answer: Answer) -> [UInt8] {
        answer.release.documentJSON(publicBaseURL: publicBaseURL, variant: answer.variant)
    }
}
