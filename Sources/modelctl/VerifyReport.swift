import Foundation
import ModelCatalog

/// The outcome of re-hashing a models directory against its catalog (`modelctl verify`).
struct VerifyReport {
    /// One file the catalog names: a release's own or one of its variants' (SPEC §3.1).
    struct CheckedFile {
        let id: String        // the release's
        let file: String
        let size: Int64
        let sha256: String
    }

    struct Problem {
        enum Kind: String { case missing, unreadable, sizeMismatch = "size_mismatch", sha256Mismatch = "sha256_mismatch" }
        let release: CheckedFile
        let kind: Kind
        var actualSize: Int64?
        var actualSHA256: String?
        var detail: String?

        /// One line naming the release and its file, for people.
        var line: String {
            let what: String
            switch kind {
            case .missing: what = "missing"
            case .unreadable: what = "unreadable: \(detail ?? "")"
            case .sizeMismatch: what = "size \(actualSize ?? 0) bytes, catalog says \(release.size)"
            case .sha256Mismatch: what = "sha256 \(actualSHA256 ?? ""), catalog says \(release.sha256)"
            }
            return "\(release.id) \(release.file): \(what)"
        }
    }

    let directory: String
    var checked = 0
    var bytes: Int64 = 0
    /// Releases whose file garbage collection deleted (`file_deleted_at`): nothing to check.
    var skipped = 0
    var problems: [Problem] = []

    var summary: String {
        "ok: \(checked) file\(checked == 1 ? "" : "s") (\(bytes.byteCountText)) in \(directory) match the catalog"
            + (skipped > 0 ? "; \(skipped) skipped (file deleted)" : "")
    }

    /// `{"models_dir","ok","checked","skipped","bytes","problems":[{"id","file","problem",…}]}`.
    var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.field("models_dir", directory)
        w.key("ok"); w.bool(problems.isEmpty)
        w.field("checked", checked)
        w.field("skipped", skipped)
        w.field("bytes", bytes)
        w.key("problems")
        w.beginArray()
        for p in problems {
            w.beginObject()
            w.field("id", p.release.id)
            w.field("file", p.release.file)
            w.field("problem", p.kind.rawValue)
            w.field("expected_size", p.release.size)
            if let size = p.actualSize { w.field("actual_size", size) }
            w.field("expected_sha256", p.release.sha256)
            if let sha = p.actualSHA256 { w.field("actual_sha256", sha) }
            if let detail = p.detail { w.field("detail", detail) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.string
    }
}
