import BinaryText
import ChunkList

/// What is wrong with one file's chunk list (SPEC §14), judged from three things: the
/// `<file>.chunks` bytes on disk, the catalog's record of them (the `chunks` field §12's
/// signatures cover) and the list the file's bytes give now. `modelctl verify` reports it;
/// `modelctl chunks backfill` repairs every kind but `describesOtherBytes`. Pure.
public enum ChunkListFinding: Equatable, Sendable {
    /// The catalog records no list for the file (published before v4).
    case unrecorded
    /// The catalog records one, but `<file>.chunks` does not exist.
    case missing
    /// `<file>.chunks` is not a chunk list the writer would have written (truncated, …).
    case invalid(ChunkListError)
    /// A well-formed list, but not the bytes the catalog recorded (replaced or edited).
    case notRecorded
    /// The recorded list itself does not describe the file: `detail` says where it first differs.
    case describesOtherBytes(String)

    /// nil when the list on disk is the recorded one and is exactly what chunking the file gives.
    public static func check(onDisk bytes: [UInt8]?, recorded: ChunkListFile?, rebuilt: ChunkList) -> ChunkListFinding? {
        guard let recorded else { return .unrecorded }
        guard let bytes else { return .missing }
        let list: ChunkList
        do throws(ChunkListError) { list = try ChunkList(decoding: bytes) } catch { return .invalid(error) }
        guard ChunkListFile(encoded: bytes) == recorded else { return .notRecorded }
        return difference(list, rebuilt).map { .describesOtherBytes($0) }
    }

    /// Where `list` first departs from `rebuilt` (the file's own), or nil when they are equal.
    package static func difference(_ list: ChunkList, _ rebuilt: ChunkList) -> String? {
        guard list.fileSize == rebuilt.fileSize else {
            return "the list describes \(list.fileSize) bytes, the file has \(rebuilt.fileSize)"
        }
        var offset: Int64 = 0
        for (i, (listed, actual)) in zip(list.chunks, rebuilt.chunks).enumerated() {
            if listed != actual {
                return "chunk \(i) at offset \(offset): the list says \(listed.length) bytes with SHA-256 \(Hex.encode(listed.sha256.bytes)), "
                    + "chunking the file gives \(actual.length) bytes with \(Hex.encode(actual.sha256.bytes))"
            }
            offset += Int64(listed.length)
        }
        // Equal sizes and equal chunks up to the shorter list: the lengths tile the same file.
        return list.chunks.count == rebuilt.chunks.count ? nil
            : "the list has \(list.chunks.count) chunks, chunking the file gives \(rebuilt.chunks.count)"
    }

    /// One line for people.
    public var message: String {
        switch self {
        case .unrecorded: "no chunk list recorded in the catalog (published before v4)"
        case .missing: "missing (the catalog records it)"
        case .invalid(let error): "invalid: \(error)"
        case .notRecorded: "not the chunk list the catalog records"
        case .describesOtherBytes(let detail): "does not describe its file: \(detail)"
        }
    }

    /// `modelctl chunks backfill` rewrites the list the file's bytes give: it repairs every
    /// finding whose recorded list (if any) is the file's own.
    public var backfillRepairs: Bool {
        if case .describesOtherBytes = self { return false }
        return true
    }

    /// The `problem` value of `modelctl verify --json`.
    public var code: String {
        switch self {
        case .unrecorded: "chunks_unrecorded"
        case .missing: "chunks_missing"
        case .invalid: "chunks_invalid"
        case .notRecorded: "chunks_sha256_mismatch"
        case .describesOtherBytes: "chunks_mismatch"
        }
    }
}
