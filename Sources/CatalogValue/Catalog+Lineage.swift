// SPEC §3.2: which release an adapter is built on, and the adapters built on a release, for
// the console's release page.
extension Catalog {
    public struct Lineage: Sendable, Equatable {
        /// The release whose channel and file the base names, nil when it names a file no
        /// release of that channel has (an app's bundled model) or the release has no base.
        public var baseRelease: Release?
        /// Releases whose base is this release's channel and file, in catalog order.
        public var adapters: [Release] = []

        public init(baseRelease: Release? = nil, adapters: [Release] = []) {
            self.baseRelease = baseRelease
            self.adapters = adapters
        }
    }

    public func lineage(of r: Release) -> Lineage {
        Lineage(
            baseRelease: r.base.flatMap { b in releases.last { $0.channel == b.channel && $0.sha256 == b.sha256 } },
            adapters: releases.filter { $0.base?.channel == r.channel && $0.base?.sha256 == r.sha256 })
    }
}
