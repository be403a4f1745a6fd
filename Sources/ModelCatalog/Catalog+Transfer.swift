// Packed files and patches (SPEC §16): which files wait for a derivation, against which bases,
// and how its result enters the catalog. Pure; CatalogStore+Transfer does the I/O.

/// One model or variant file without a `TransferFiles` record, and the files its patches start from.
public struct DerivationJob: Sendable, Equatable {
    public struct Base: Sendable, Equatable {
        /// The base release's id: a patch's `from`.
        public let releaseID: String
        public let file: String
    }

    public let releaseID: String
    /// nil: the release's own file.
    public let variantName: String?
    public let file: String
    /// Newest first, at most `patch_bases`.
    public let bases: [Base]
}

extension Catalog {
    /// Every file still to be derived, newest release first (the one devices fetch next): files
    /// of releases that are not retired, and live variants, whose file is there and which have
    /// no record yet. Bases are the last `patchBases` earlier releases of the same channel and
    /// extension whose file is there (for a variant, the same-named variant of those releases
    /// with the same extension), newest first.
    public func derivationJobs(patchBases: Int) -> [DerivationJob] {
        var jobs: [DerivationJob] = []
        for r in releases.reversed() where r.state != .retired {
            let earlier = releases.filter { $0.seq < r.seq && $0.channel == r.channel }
            if r.fileDeletedAt == nil, r.transfer == nil {
                let bases = earlier.filter { $0.ext == r.ext && $0.fileDeletedAt == nil }.map { DerivationJob.Base(releaseID: $0.id, file: $0.file) }
                jobs.append(DerivationJob(releaseID: r.id, variantName: nil, file: r.file, bases: Array(bases.suffix(patchBases).reversed())))
            }
            for v in r.variants where v.isLive && v.fileDeletedAt == nil && v.transfer == nil {
                let bases = earlier.compactMap { b in
                    Self.patchBase(of: b, variant: v.name).flatMap { $0.ext == v.ext ? DerivationJob.Base(releaseID: b.id, file: $0.file) : nil }
                }
                jobs.append(DerivationJob(releaseID: r.id, variantName: v.name, file: v.file, bases: Array(bases.suffix(patchBases).reversed())))
            }
        }
        return jobs
    }

    /// The variant of `release` named `name` whose file is still there (a removed one too:
    /// devices may hold it), the latest added.
    static func patchBase(of release: Release, variant name: String) -> Variant? {
        release.variants.last { $0.name == name && $0.fileDeletedAt == nil }
    }
}
