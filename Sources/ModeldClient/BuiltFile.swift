import ContentDigest
import DurableFiles
import Foundation

/// A release's file being built by a delta or decoded from a pack or patch: preallocated to the
/// release's size, written by offset from any thread.
final class BuiltFile: Sendable {
    let path: String
    private let fd: Int32

    init(file: URL, size: Int64, fresh: Bool) throws {
        path = file.path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw ModeldClientError.io("open \(path): \(DiskIO.errorText())") }
        guard ftruncate(fd, off_t(size)) == 0 else {
            DiskIO.closeFile(fd)
            throw ModeldClientError.io("truncate \(path): \(DiskIO.errorText())")
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ModeldClientError.io("write \(path): \(DiskIO.errorText())") }
            done += n
        }
    }

    func sync() throws { try DiskIO.syncData(fd, path: path) }

    /// The whole file's SHA-256 against the release's (its size is the preallocated one), then
    /// fsynced: from here on it is an ordinary verified download.
    func verify(sha256 expected: String) throws {
        let digest: String
        do throws(IOFailure) { digest = try SHA256Hex.of(fd: fd, path: path) } catch { throw ModeldClientError.io(error.description) }
        guard digest == expected else { throw TransferFallback(reason: "the built file has SHA-256 \(digest), the release says \(expected)") }
        try DiskIO.syncFile(fd, path: path)
    }

    func close() { DiskIO.closeFile(fd) }
}
