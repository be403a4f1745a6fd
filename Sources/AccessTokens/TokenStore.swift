import CLinuxShims
import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// `data/tokens.json` (SPEC §15.1): mode 0600, replaced atomically (SPEC §2). Every
/// read-modify-write holds an OFD lock on `data/tokens.lock`, so replicas sharing the data
/// directory and `modelctl tokens --data-dir` never lose one another's change (a revocation
/// is never undone by a replica writing back its last-use times).
public struct TokenStore: Sendable {
    public let directory: String
    public let path: String
    let lockPath: String

    public init(dataDir: String) {
        directory = dataDir
        path = dataDir + "/tokens.json"
        lockPath = dataDir + "/tokens.lock"
    }

    /// The book on disk; no file is an empty book.
    public func load() throws(TokenBookError) -> TokenBook {
        let bytes: [UInt8]?
        do { bytes = try DurableFile.read(path) } catch { throw TokenBookError(.storage, error.description) }
        guard let bytes else { return TokenBook() }
        do { return try TokenBook(json: bytes) } catch { throw TokenBookError(.storage, "\(path): \(error.message)") }
    }

    /// Runs `body` on the current book under the lock and writes the result back when it changed.
    public func change<T>(_ body: (inout TokenBook) throws(TokenBookError) -> T) throws(TokenBookError) -> T {
        do { try DurableFile.makeDirectories(directory) } catch { throw TokenBookError(.storage, error.description) }
        let fd: Int32
        do { fd = try DurableFile.open(lockPath, O_RDWR | O_CREAT, mode: 0o600) } catch { throw TokenBookError(.storage, error.description) }
        defer { close(fd) }   // closing releases the lock, also when a crash closes it
        while modeld_ofd_lock(fd, 1) != 0 {
            if errno != EINTR { throw TokenBookError(.storage, IOFailure(path: lockPath, operation: "lock", code: errno).description) }
        }
        var book = try load()
        let before = book
        let result = try body(&book)
        if book != before {
            do { try DurableFile.replace(path, with: book.json, mode: 0o600) } catch { throw TokenBookError(.storage, error.description) }
        }
        return result
    }

    /// Which version of the file is on disk: the server polls it instead of reading the file.
    public func stamp() -> FileStamp { FileStamp(of: path) }
}
