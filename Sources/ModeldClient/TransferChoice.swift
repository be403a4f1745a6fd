/// Which way a release's file is fetched (SPEC §16): of a patch from a model this device has,
/// a chunk delta (§14), the packed file and the full file, the one with the fewest bytes to
/// fetch. Pure: the caller says what a delta would fetch (nil when §14's rule rules it out) and
/// which models it holds. A tie goes to the simpler way, in the order full, delta, packed,
/// patch: no decoding beats decoding, and no base to read beats reading one
/// (docs/decisions/cheapest-transfer.md).
enum TransferChoice: Equatable {
    case full
    case delta
    case packed(PackedReference)
    /// The patch and the installed (or bundled) model it applies to.
    case patch(PatchReference, base: InstalledModel)

    var method: FetchMethod {
        switch self {
        case .full: .full
        case .delta: .delta
        case .packed: .packed
        case .patch: .patch
        }
    }

    /// - Parameters:
    ///   - deltaBytes: the bytes a chunk delta would fetch, nil when it is not eligible.
    ///   - models: the models this device holds, in order of preference (the active one first).
    static func cheapest(for release: ReleaseDocument, models: [InstalledModel], deltaBytes: Int64?) -> TransferChoice {
        var best = (choice: TransferChoice.full, bytes: release.size)
        func consider(_ choice: TransferChoice, _ bytes: Int64) {
            if bytes < best.bytes { best = (choice, bytes) }
        }
        if let deltaBytes { consider(.delta, deltaBytes) }
        if let packed = release.packed { consider(.packed(packed), packed.size) }
        for patch in release.patches ?? [] {
            if let base = models.first(where: { isBase($0, of: patch, for: release) }) { consider(.patch(patch, base: base), patch.size) }
        }
        return best.choice
    }

    /// A patch applies to the file of release `from`; for a variant's patch, to that release's
    /// same-named variant. A model installed as another variant of `from` (or as its default
    /// file) is another file, and so no base.
    static func isBase(_ model: InstalledModel, of patch: PatchReference, for release: ReleaseDocument) -> Bool {
        model.id == patch.from && model.release.variant == release.variant
    }
}
