import ModeldSigning

/// `rules/index.sig.json` (SPEC §17.2), written by `RulesFiles` after the channels' own files:
/// an entry per channel for the snapshot its pointer names (size and SHA-256 from the pointer,
/// which was derived and signed under the same publish lock). Rewritten only when an entry
/// changed, or with `resign`, so its ETag stays while no channel changed.
struct RulesIndexFile {
    let files: RulesFiles

    var path: String { files.modelsDirectory + "/" + RulesIndex.path }

    func write(catalog: Int64, channels: [String], now: Int64, resign: Bool) throws(CatalogError) {
        var entries: [String: RulesIndex.Entry] = [:]
        for channel in channels {
            // A channel whose snapshot was refused (SPEC §12.1) keeps its previous pointer, and so its entry.
            guard let pointer = files.currentPointer(channel: channel) else { continue }
            entries[channel] = RulesIndex.Entry(file: pointer.file, sha256: pointer.sha256, size: pointer.size)
        }
        let current = (try? FileIO.read(path)).flatMap { try? RulesIndex.decode($0) }
        if let current, current.channels == entries, !resign { return }
        let body = RulesIndex.entriesText(entries)
        let index: RulesIndex
        if let signer = files.signer {
            let stamp = signer.sign(kind: .rulesIndex, catalog: catalog, body: body, now: now)
            index = RulesIndex(params: stamp.params, channels: entries, signatures: stamp.signatures)
        } else {
            index = RulesIndex(params: SignatureParams(catalog: catalog, created: now, expires: now + RulesFiles.unsignedTTLSeconds),
                               channels: entries, signatures: [])
        }
        try FileIO.atomicReplace(path, with: index.encoded())
    }
}
