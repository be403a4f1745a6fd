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
    /// The file's size: what a deriver weighs before starting it (docs/decisions/derivation.md).
    public let size: Int64
    /// Newest first, at most `patch_bases`.
    public let bases: [Base]
}

extension Catalog {
    /// Every file still to be derived, newest release first (the one devices fetch next): files
    /// of releases that are not retired, and live variants, whose file is there and which have
    /// no record yet. Bases are the last `patchBases` earlier releases of the same channel and
    /// extension whose file is there (for a variant, the same-named variant of those releases
    /// with the same extension), newest first.
    /// One pass over the releases (oldest first, each channel's earlier releases in hand), so
    /// planning a catalog of thousands of releases is linear, not quadratic.
    public func derivationJobs(patchBases: Int) -> [DerivationJob] {
        var perRelease: [[DerivationJob]] = []   // oldest first
        var earlierByChannel: [String: [Release]] = [:]
        for r in releases.sorted(by: { $0.seq < $1.seq }) {
            defer { earlierByChannel[r.channel, default: []].append(r) }
            guard r.state != .retired else { continue }
            let earlier = earlierByChannel[r.channel] ?? []
            /// The newest `patchBases` of `earlier` that `base` accepts, newest first.
            func bases(_ base: (Release) -> DerivationJob.Base?) -> [DerivationJob.Base] {
                var found: [DerivationJob.Base] = []
                for b in earlier.reversed() where found.count < patchBases {
                    if let made = base(b) { found.append(made) }
                }
                return found
            }
            var jobs: [DerivationJob] = []
            if r.fileDeletedAt == nil, r.transfer == nil {
                jobs.append(DerivationJob(releaseID: r.id, variantName: nil, file: r.file, size: r.size, bases: bases { b in
                    b.ext == r.ext && b.fileDeletedAt == nil ? DerivationJob.Base(releaseID: b.id, file: b.file) : nil
                }))
            }
            for v in r.variants where v.isLive && v.fileDeletedAt == nil && v.transfer == nil {
                jobs.append(DerivationJob(releaseID: r.id, variantName: v.name, file: v.file, size: v.size, bases: bases { b in
                    Self.patchBase(of: b, variant: v.name).flatMap { $0.ext == v.ext ? DerivationJob.Base(releaseID: b.id, file: $0.file) : nil }
                }))
            }
            if !jobs.isEmpty { perRelease.append(jobs) }
        }
        // Newest release first (the one devices fetch next), its own file before its variants.
        return perRelease.reversed().flatMap { $0 }
    }

    /// The record of `job`'s file as the catalog holds it (nil: none, or the file is gone).
    package func transfer(of job: DerivationJob) -> TransferFiles? {
        guard let r = release(id: job.releaseID) else { return nil }
        return job.variantName == nil ? (r.file == job.file ? r.transfer : nil) : r.variants.first { $0.file == job.file }?.transfer
    }

    /// The variant of `release` named `name` whose file is still there (a removed one too:
    /// devices may hold it), the latest added.
    package static func patchBase(of release: Release, variant name: String) -> Variant? {
        release.variants.last { $0.name == name && $0.fileDeletedAt == nil }
    }
}
