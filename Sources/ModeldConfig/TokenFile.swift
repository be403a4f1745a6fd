// The admin token file (SPEC §8): read at start-up, or created with a random token when it does
// not exist. The caller logs the path, never the token.
import BinaryText
import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum TokenFile {
    public struct Loaded: Sendable, Equatable {
        public var token: String
        /// True when this call created the file (log "created admin token file <path>").
        public var created: Bool
    }

    /// Reads the token in `path` (surrounding whitespace ignored), or creates the file — parent
    /// directories included — with 32 random bytes as hex, mode 0600. Creation goes through a
    /// temp file and `link(2)`, so a crash never leaves a half-written token and two processes
    /// racing to create it end up with the same token.
    public static func loadOrCreate(path: String) throws(TokenFileError) -> Loaded {
        if let token = try readToken(path) { return Loaded(token: token, created: false) }
        let token = try randomHexToken()
        try createParentDirectories(of: path)
        let temp = "\(path).tmp-\(getpid())"
        try writeNew(temp, contents: token + "\n")
        defer { unlink(temp) }
        if link(temp, path) != 0 {
            guard errno == EEXIST, let existing = try readToken(path) else { throw TokenFileError(path: path, errno: errno, doing: "create") }
            return Loaded(token: existing, created: false)
        }
        do { try DurableFile.syncDirectory(DurableFile.directory(of: path)) } catch { throw TokenFileError(error) }
        return Loaded(token: token, created: true)
    }

    /// 32 bytes from /dev/urandom, lowercase hex (64 characters).
    static func randomHexToken() throws(TokenFileError) -> String {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TokenFileError(path: "/dev/urandom", errno: errno, doing: "open") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw TokenFileError(path: "/dev/urandom", errno: errno, doing: "read") }
            filled += n
        }
        return Hex.encode(bytes)
    }

    /// nil when the file does not exist.
    private static func readToken(_ path: String) throws(TokenFileError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw TokenFileError(path: path, errno: errno, doing: "open")
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var length = 0
        while length < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + length, $0.count - length) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw TokenFileError(path: path, errno: errno, doing: "read") }
            if n == 0 { break }
            length += n
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let content = buffer[..<length].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !content.isEmpty, content.count <= 512, content.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw TokenFileError(path: path, reason: "must hold one token of 1-512 visible ASCII characters")
        }
        return String(decoding: content, as: UTF8.self)
    }

    private static func writeNew(_ path: String, contents: String) throws(TokenFileError) {
        unlink(path)  // a leftover from a crashed earlier attempt by a process with our pid
        do {
            let fd = try DurableFile.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            defer { close(fd) }
            try DurableFile.writeAll(fd, Array(contents.utf8), path: path)
            try DurableFile.sync(fd, path: path)
        } catch {
            throw TokenFileError(error)
        }
    }

    private static func createParentDirectories(of path: String) throws(TokenFileError) {
        do { try DurableFile.makeDirectories(DurableFile.directory(of: path)) } catch { throw TokenFileError(error) }
    }
}

public struct TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32, doing action: String) {
        self.init(path: path, reason: "cannot \(action): \(String(cString: strerror(code)))")
    }

    init(_ failure: IOFailure) {
        self.init(path: failure.path, errno: failure.code, doing: failure.operation)
    }

    public var description: String { "admin token file \(path): \(reason)" }
}
