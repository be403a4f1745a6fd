#if canImport(Glibc)
import Glibc
#endif
import DurableFiles
@testable import EventStore

/// A fresh directory under /tmp, removed by the caller with `removeTree`.
func makeTempDirectory() -> String {
    var template = Array("/tmp/eventstore-test-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    return path
}

func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// A valid batch body with `count` events.
func batchBody(id: String, client: String? = "c1", count: Int, extra: String = "") -> [UInt8] {
    let events = (0..<count).map { i in
        #"{"name":"prompt","ts":"2026-11-21T10:00:00Z","model_id":"m1","outcome":"\#(i % 3 == 0 ? "purchased" : "dismissed")","seq_hint":\#(i)\#(extra)}"#
    }
    let clientField = client.map { #""client_id":"\#($0)","# } ?? ""
    return bytes(#"{"batch_id":"\#(id)",\#(clientField)"events":[\#(events.joined(separator: ","))]}"#)
}

func parseBatch(_ body: [UInt8], query: String? = nil, max: Int = 1000) throws(EventBatchError) -> EventBatch {
    try BatchParser.parse(body, queryClientID: query, maxEventsPerBatch: max)
}

/// Every committed line of every `.jsonl` under `root`.
func allLines(_ root: String) throws -> [String] {
    var lines: [String] = []
    for day in SegmentLayout.days(in: root) {
        for name in (DurableFile.entries(of: "\(root)/\(day)") ?? []).filter({ $0.hasSuffix(".jsonl") }).sorted() {
            _ = try SegmentReader(path: "\(root)/\(day)/\(name)").forEachCommittedLine { lines.append(String(decoding: $0, as: UTF8.self)) }
        }
    }
    return lines
}

/// Paths of the files under `root` whose names end with `suffix`.
func files(_ root: String, suffix: String) -> [String] {
    SegmentLayout.days(in: root).flatMap { day in
        (DurableFile.entries(of: "\(root)/\(day)") ?? []).filter { $0.hasSuffix(suffix) }.sorted().map { "\(root)/\(day)/\($0)" }
    }
}

func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

func appendRaw(_ path: String, _ s: String) {
    let fd = open(path, O_WRONLY | O_APPEND)
    _ = Array(s.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func openStore(_ dir: String, instance: String = "i1", configure: (inout EventStoreConfig) -> Void = { _ in }) throws -> EventStore {
    var config = EventStoreConfig(directory: dir, instance: instance)
    configure(&config)
    return try EventStore(config: config)
}
