import Foundation
import JSONSupport
import ModelCatalog

/// The outcome of re-hashing a models directory against its catalog (`modelctl verify`).
struct VerifyReport {
    /// One file the catalog names: a release's own or one of its variants' (SPEC §3.1).
    struct CheckedFile {
        let id: String        // the release's
        let file: String
        let size: Int64
        let sha256: String
        /// The catalog's record of the file's chunk list (SPEC §14), nil before v4.
        let chunks: ChunkListFile?
    }

    struct Problem {
        enum Kind {
            case missing, unreadable, sizeMismatch, sha256Mismatch
            /// The model file is right; its chunk list is not.
            case chunkList(ChunkListFinding)
            /// A snapshot holds other bytes than the catalog derives for its version (SPEC §12.1).
            case snapshotMismatch

            /// The `problem` value of the JSON report.
            var code: String {
                switch self {
                case .missing: "missing"
                case .unreadable: "unreadable"
                case .sizeMismatch: "size_mismatch"
                case .sha256Mismatch: "sha256_mismatch"
                case .chunkList(let finding): finding.code
                case .snapshotMismatch: "snapshot_mismatch"
                }
            }
        }

        /// nil for a snapshot (`snapshotMismatch`): no release owns it.
        let release: CheckedFile?
        let kind: Kind
        /// The file the problem is about: the model file, its `.chunks` (`isChunkList`), or a
        /// snapshot relative to the models directory.
        let file: String
        /// What the catalog records for `file`, when it records anything.
        let expected: (size: Int64, sha256: String)?
        var actualSize: Int64?
        var actualSHA256: String?
        var detail: String?
        /// The command that repairs it, when there is one.
        var remedy: String?

        /// A problem of the model file itself.
        init(file release: CheckedFile, _ kind: Kind, actualSize: Int64? = nil, actualSHA256: String? = nil, detail: String? = nil) {
            self.release = release
            self.kind = kind
            file = release.file
            expected = (release.size, release.sha256)
            self.actualSize = actualSize
            self.actualSHA256 = actualSHA256
            self.detail = detail
        }

        /// A problem of the file's chunk list `<file>.chunks`.
        init(chunksOf release: CheckedFile, _ kind: Kind, onDisk: [UInt8]?, detail: String? = nil) {
            self.release = release
            self.kind = kind
            file = ChunkListFile.name(of: release.file)
            expected = release.chunks.map { ($0.size, $0.sha256) }
            if let onDisk {
                let actual = ChunkListFile(encoded: onDisk)
                actualSize = actual.size
                actualSHA256 = actual.sha256
            }
            self.detail = detail
        }

        /// A snapshot that is not what the catalog derives; `directory` goes into the remedy.
        init(_ mismatch: SnapshotMismatch, directory: String) {
            release = nil
            kind = .snapshotMismatch
            file = mismatch.file
            expected = (mismatch.expectedSize, mismatch.expectedSHA256)
            actualSize = mismatch.foundSize
            actualSHA256 = mismatch.foundSHA256
            detail = "catalog version \(mismatch.catalog) derives other bytes; no writer signs this file"
            remedy = "\(SnapshotMismatch.remedy) --models-dir \(directory)"
        }

        var isChunkList: Bool { release.map { file != $0.file } ?? false }

        /// One line naming the release (if any) and the file, for people.
        var line: String {
            let what: String
            switch kind {
            case .missing: what = "missing"
            case .unreadable: what = "unreadable: \(detail ?? "")"
            case .sizeMismatch: what = "size \(actualSize ?? 0) bytes, catalog says \(expected?.size ?? 0)"
            case .sha256Mismatch: what = "sha256 \(actualSHA256 ?? ""), catalog says \(expected?.sha256 ?? "")"
            case .chunkList(let finding): what = finding.message
            case .snapshotMismatch: what = "snapshot_mismatch: sha256 \(actualSHA256 ?? ""), expected \(expected?.sha256 ?? "") (\(detail ?? ""))"
            }
            return (release.map { "\($0.id) " } ?? "") + "\(file): \(what)" + (remedy.map { "; run `\($0)`" } ?? "")
        }
    }

    let directory: String
    var checked = 0
    var bytes: Int64 = 0
    /// Chunk lists found to be the recorded ones and to describe their files.
    var chunkLists = 0
    /// Snapshots of the current catalog version found to be its derivation (SPEC §12.1).
    var snapshots = 0
    /// Releases whose file garbage collection deleted (`file_deleted_at`): nothing to check.
    var skipped = 0
    var problems: [Problem] = []

    var summary: String {
        "ok: \(checked) file\(checked == 1 ? "" : "s") (\(bytes.byteCountText)) in \(directory) match the catalog, "
            + "and so do their \(chunkLists) chunk list\(chunkLists == 1 ? "" : "s")"
            + (snapshots > 0 ? "; \(snapshots) snapshot\(snapshots == 1 ? "" : "s") of its version match\(snapshots == 1 ? "es" : "") the catalog's derivation" : "")
            + (skipped > 0 ? "; \(skipped) skipped (file deleted)" : "")
    }

    /// The one-line cause of a failed run (stderr).
    var failure: String {
        let lists = problems.filter(\.isChunkList).count
        let derived = problems.filter { $0.release == nil }.count
        let files = problems.count - lists - derived
        var parts: [String] = []
        if files > 0 { parts.append("\(files) of \(checked) files in \(directory) do not match the catalog") }
        if lists == 1 { parts.append("1 chunk list is missing or does not describe its file") }
        if lists > 1 { parts.append("\(lists) chunk lists are missing or do not describe their files") }
        if derived > 0 { parts.append("\(derived) snapshot\(derived == 1 ? " holds" : "s hold") other bytes than the catalog derives (snapshot_mismatch)") }
        return parts.joined(separator: "; ")
    }

    /// `{"models_dir","ok","checked","chunk_lists","snapshots","skipped","bytes","problems":[{"id","file","problem",…}]}`.
    /// A chunk-list problem names the list as `file` and its model file as `model_file`; the
    /// expected figures are the catalog's record (absent when it records none). A
    /// `snapshot_mismatch` has no `id`: its expected figures are the catalog's derivation.
    var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.field("models_dir", directory)
        w.key("ok"); w.bool(problems.isEmpty)
        w.field("checked", checked)
        w.field("chunk_lists", chunkLists)
        w.field("snapshots", snapshots)
        w.field("skipped", skipped)
        w.field("bytes", bytes)
        w.key("problems")
        w.beginArray()
        for p in problems {
            w.beginObject()
            if let release = p.release { w.field("id", release.id) }
            w.field("file", p.file)
            if p.isChunkList, let release = p.release { w.field("model_file", release.file) }
            w.field("problem", p.kind.code)
            if let expected = p.expected { w.field("expected_size", expected.size) }
            if let size = p.actualSize { w.field("actual_size", size) }
            if let expected = p.expected { w.field("expected_sha256", expected.sha256) }
            if let sha = p.actualSHA256 { w.field("actual_sha256", sha) }
            if let detail = p.detail { w.field("detail", detail) }
            if let remedy = p.remedy { w.field("remedy", remedy) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.string
    }
}
