import BinaryText
#if canImport(Glibc)
import Glibc
#endif
import ChunkList
import CryptoPrimitives

/// A verified upload waiting in `models/.tmp/` to be published (`CatalogStore.publish`).
public struct FinishedUpload: Sendable, Equatable {
    public let path: String
    /// Lowercase hex.
    public let sha256: String
    public let size: Int64
    /// Cut and hashed as the bytes streamed in (SPEC §14), so publishing never reads the file again.
    public let chunkList: ChunkList
}

/// Streams an upload into `models/.tmp/<instance>-<random>`, hashing on the fly (SPEC §7.1).
/// Nothing is left behind on failure: a sha mismatch, a full disk or `abort()` deletes the temp.
/// Owned by one thread at a time (the route hands it from loop to disk thread, never shares it),
/// hence `@unchecked Sendable`.
public final class UploadWriter: @unchecked Sendable {
    public let path: String
    public private(set) var size: Int64 = 0
    private var fd: Int32
    private var hasher = SHA256()
    private var chunker = ChunkListBuilder()
    private var done = false

    public init(modelsDirectory: String, instance: String) throws(CatalogError) {
        try UploadWriter.validateInstance(instance)
        try FileIO.makeDirectory(modelsDirectory)
        let tmp = modelsDirectory + "/.tmp"
        try FileIO.makeDirectory(tmp)
        path = "\(tmp)/\(instance)-\(Hex.random(bytes: 8))"
        fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    }

    deinit { if !done { abort() } }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(CatalogError) {
        precondition(!done, "UploadWriter used after finish/abort")
        guard bytes.count > 0 else { return }
        do throws(CatalogError) {
            try FileIO.writeAll(fd, bytes, path: path)
        } catch {
            abort()
            throw error
        }
        hasher.update(bufferPointer: bytes)
        chunker.append(bytes)
        size += Int64(bytes.count)
    }

    public func write(_ bytes: [UInt8]) throws(CatalogError) {
        let failure: CatalogError? = bytes.withUnsafeBytes { raw in
            do throws(CatalogError) { try write(raw); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// fsyncs, then checks `expectedSHA256` (64 hex digits) when given: a mismatch is
    /// `sha256_mismatch` and the temp is gone.
    public func finish(expectedSHA256: String? = nil) throws(CatalogError) -> FinishedUpload {
        precondition(!done, "UploadWriter used after finish/abort")
        do throws(CatalogError) {
            try FileIO.fsync(fd, path: path)
        } catch {
            abort()
            throw error
        }
        close(fd)
        done = true
        let actual = Hex.encode(hasher.finalize())
        if let expectedSHA256 {
            let expected = expectedSHA256.lowercased()
            guard Hex.isLowercase(expected, bytes: 32) else {
                unlink(path)
                throw .invalid("sha256", "X-Model-SHA256 must be 64 hex digits")
            }
            guard expected == actual else {
                unlink(path)
                throw CatalogError(.sha256Mismatch, parameter: "sha256", "upload has SHA-256 \(actual), expected \(expected)")
            }
        }
        return FinishedUpload(path: path, sha256: actual, size: size, chunkList: chunker.finish())
    }

    /// Deletes the temp; safe to call more than once.
    public func abort() {
        guard !done else { return }
        done = true
        close(fd)
        unlink(path)
    }

    static func validateInstance(_ instance: String) throws(CatalogError) {
        guard !instance.isEmpty, instance.utf8.count <= 128, !instance.hasPrefix("."),
              instance.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw .invalid("instance_id", "must be printable ASCII without / or spaces")
        }
    }
}
