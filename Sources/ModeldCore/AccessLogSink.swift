// Where serialised access-log lines go: stdout, or a file rotated by size
// (`access-<instance>.log` → `.1` → … → `.<keep>`, the oldest deleted). Confined to the writer thread.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class AccessLogSink {
    private let destination: AccessLogWriter.Destination
    private var fd: Int32 = -1
    private var size: Int64 = 0

    /// Opens the file at once, so a bad path fails start-up rather than the first request.
    init(_ destination: AccessLogWriter.Destination) throws(AccessLogError) {
        self.destination = destination
        if case .file(let path, _, _) = destination { try openFile(path) }
    }

    /// Releases the file (stdout stays open).
    func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Writes whole lines, rotating first whenever the next line would pass the size limit.
    /// Lines are appended to `chunk` and written in as few syscalls as the limit allows.
    func append(_ records: [AccessLogRecord], chunk: inout [UInt8], line: inout [UInt8]) throws(AccessLogError) {
        chunk.removeAll(keepingCapacity: true)
        for record in records {
            line.removeAll(keepingCapacity: true)
            record.appendJSONLine(to: &line)
            if case .file(_, let maxBytes, _) = destination, maxBytes > 0,
               size + Int64(chunk.count + line.count) > maxBytes, size + Int64(chunk.count) > 0 {
                try writeAll(chunk)
                chunk.removeAll(keepingCapacity: true)
                try rotate()
            }
            chunk.append(contentsOf: line)
        }
        try writeAll(chunk)
    }

    private func writeAll(_ bytes: [UInt8]) throws(AccessLogError) {
        let target: Int32
        switch destination {
        case .stdout: target = STDOUT_FILENO
        case .file(let path, _, _):
            if fd < 0 { try openFile(path) }  // reopen after an earlier failure
            target = fd
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(target, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                if case .file(let path, _, _) = destination {
                    close(fd)
                    fd = -1
                    throw AccessLogError(path: path, errno: code, doing: "write")
                }
                throw AccessLogError(path: "-", errno: code, doing: "write")
            }
            written += n
            size += Int64(n)
        }
    }

    private func rotate() throws(AccessLogError) {
        guard case .file(let path, _, let keep) = destination else { return }
        close(fd)
        fd = -1
        if keep > 0 {
            for index in stride(from: keep - 1, through: 1, by: -1) {
                rename("\(path).\(index)", "\(path).\(index + 1)")
            }
            rename(path, "\(path).1")
        } else {
            unlink(path)
        }
        try openFile(path)
    }

    private func openFile(_ path: String) throws(AccessLogError) {
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard opened >= 0 else { throw AccessLogError(path: path, errno: errno, doing: "open") }
        var status = stat()
        fstat(opened, &status)
        fd = opened
        size = Int64(status.st_size)
    }
}

public struct AccessLogError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    init(path: String, errno code: Int32, doing action: String) {
        self.path = path
        reason = "cannot \(action): \(String(cString: strerror(code)))"
    }

    public var description: String { "access log \(path): \(reason)" }
}
