import JSONSupport
#if canImport(Glibc)
import Glibc
#endif

/// Streams the complete lines of a segment in constant memory (one read buffer plus the line
/// being assembled). A final line without its newline is torn (a crash mid-write) and skipped.
public struct SegmentReader {
    public let path: String

    public init(path: String) { self.path = path }

    /// Calls `body` with each complete line (without its newline) until it returns false.
    /// Returns the byte length of the complete lines read, which is where a torn tail begins.
    @discardableResult
    public func forEachLine(_ body: (ArraySlice<UInt8>) throws -> Bool) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure(path: path, operation: "open", code: errno) }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var pending: [UInt8] = []
        var complete = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "read", code: errno)
            }
            if n == 0 { return complete }
            var lineStart = 0
            for i in 0..<n where chunk[i] == 0x0A {
                let line: ArraySlice<UInt8>
                if pending.isEmpty {
                    line = chunk[lineStart..<i]
                } else {
                    pending.append(contentsOf: chunk[lineStart..<i])
                    line = pending[...]
                }
                complete += line.count + 1
                guard try body(line) else { return complete }
                pending.removeAll(keepingCapacity: true)
                lineStart = i + 1
            }
            pending.append(contentsOf: chunk[lineStart..<n])
        }
    }
}

/// One stored line parsed with the strict reader, with access to each field's raw bytes.
public struct StoredEvent {
    public let bytes: [UInt8]
    public let root: JSONNode

    public init?(line: ArraySlice<UInt8>) {
        let bytes = Array(line)
        guard let node = try? JSONReader.parse(bytes), case .object = node.value else { return nil }
        self.bytes = bytes
        root = node
    }

    public subscript(field: String) -> JSONValue? { root.value[field] }

    /// The JSON text of a field's value exactly as stored.
    public func rawJSON(_ field: String) -> ArraySlice<UInt8>? {
        guard case .object(let members) = root.value, let m = members.first(where: { $0.key == field }) else { return nil }
        return bytes[m.node.range]
    }

    public var batchID: String? { self["batch_id"]?.stringValue }
    public var clientID: String? { self["client_id"]?.stringValue }
    public var receivedAt: String? { self["received_at"]?.stringValue }
    public var seq: Int? { self["seq"]?.numberValue.flatMap { Int(exactly: $0) } }
    public var dedupKey: DedupKey? { batchID.map { DedupKey(clientID: clientID, batchID: $0) } }
}
