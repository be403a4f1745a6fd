// `Configuration.load` for the real process: files from disk, the host name from the kernel.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Configuration {
    /// `load(arguments:environment:readFile:hostName:)` with `readFileFromDisk` and `currentHostName()`.
    public static func load(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> LoadOutcome {
        try load(arguments: arguments, environment: environment, readFile: readFileFromDisk, hostName: currentHostName())
    }

    /// The whole file (at most 1 MiB: a config file), nil when it does not exist.
    public static func readFileFromDisk(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw ConfigurationFileError(errno: errno)
        }
        defer { close(fd) }
        let limit = 1 << 20
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var length = 0
        while length < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + length, $0.count - length) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ConfigurationFileError(errno: errno) }
            if n == 0 { break }
            length += n
        }
        guard length <= limit else { throw ConfigurationFileError(reason: "larger than 1 MiB") }
        return Array(bytes[..<length])
    }

    /// The host name as a valid `instance_id`: characters outside `[A-Za-z0-9._-]` become `-`.
    public static func currentHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "modeld" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = String(name.unicodeScalars.prefix(64).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        })
        return safe.isEmpty || safe.hasPrefix(".") ? "modeld" : safe
    }
}

struct ConfigurationFileError: Error, CustomStringConvertible {
    var description: String

    init(reason: String) { description = reason }
    init(errno code: Int32) { description = String(cString: strerror(code)) }
}
