import ContentDigest
import HTTPWire

/// Which state of a release a change was based on (SPEC §15.1: a form never submits a value the
/// page showed before a change it has not displayed). The revision is a digest of the release's
/// catalog entry — state, rollout, guard and its runtime, label, variants, but not the packs and
/// patches derived in the background — so any change to the release, by an operator or by its
/// guard, gives it a new one, and nothing else does (not a
/// change to another release, as `catalog_version` would). Stored nowhere: catalog.json keeps
/// its format, and every replica computes the same value from the same entry.
extension Release {
    public var revision: EntityTag {
        // Packs and patches (SPEC §16) are derived in the background after a publish: no operator
        // decides on them, so a form based on the page from before they were recorded is current.
        var decided = self
        decided.transfer = nil
        for i in decided.variants.indices { decided.variants[i].transfer = nil }
        return EntityTag(opaque: String(SHA256Hex.of(decided.adminJSON(publicBaseURL: nil)).prefix(32)))
    }
}

extension Catalog {
    /// 409 `conflict` unless release `id` still has a revision `expected` lists (`If-Match`;
    /// nil: the change is unconditional, as every change was before v5). Called inside the
    /// change, under the publish lock, so nothing can slip in between the check and the write.
    public func check(_ expected: EntityTagList?, of id: String) throws(CatalogError) {
        guard let expected else { return }
        let i = try index(of: id)
        let current = releases[i].revision
        guard !expected.matches(current, weakComparison: false) else { return }
        throw CatalogError(.conflict, parameter: "If-Match",
                           "release \(id) changed since the revision the request was based on (now \(current.headerValue)); nothing was changed")
    }
}
