import Foundation
import Synchronization
import Testing
@testable import ModeldCore

/// What a reader of the access log sees (SPEC §6).
private struct Line: Decodable, Equatable {
    var ts: String
    var method: String
    var path: String
    var route: String
    var status: Int
    var bytes: Int64
    var range: Bool
    var duration_ms: Double
    var model_id: String?
    var sdk: String?
    var instance: String
}

private func record(path: String = "/models/a.gguf", status: Int = 200, index: Int = 0) -> AccessLogRecord {
    AccessLogRecord(timestampMilliseconds: 1_763_719_200_123, method: "GET", path: path, route: .models,
                    status: status, bytes: Int64(index), range: false, durationMilliseconds: 1.5,
                    modelID: "a", sdk: nil, instance: "i-1")
}

private func serialise(_ record: AccessLogRecord) -> [UInt8] {
    var out: [UInt8] = []
    record.appendJSONLine(to: &out)
    return out
}

private func lines(ofFile path: String) throws -> [Line] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
}

private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-log-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite struct AccessLogTests {
    @Test func accessLog_recordRoundTripsThroughJSON_SPEC6() throws {
        let full = AccessLogRecord(timestampMilliseconds: 1_763_719_200_123, method: "GET", path: "/models/x.mlmodel?sig=1",
                                   route: .models, status: 206, bytes: 5_000_000_000, range: true,
                                   durationMilliseconds: 12.34567, modelID: "80a2c3d1", sdk: "2.3", instance: "local-1")
        let bytes = serialise(full)
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""duration_ms":12.346,"#))
        let line = try JSONDecoder().decode(Line.self, from: Data(bytes))
        #expect(line == Line(ts: "2025-11-21T10:00:00.123Z", method: "GET", path: "/models/x.mlmodel", route: "models",
                             status: 206, bytes: 5_000_000_000, range: true, duration_ms: 12.346,
                             model_id: "80a2c3d1", sdk: "2.3", instance: "local-1"))

        let minimal = AccessLogRecord(timestampMilliseconds: 0, method: "HEAD", path: "/healthz", route: .health, status: 503,
                                      bytes: 0, range: false, durationMilliseconds: -1, instance: "i")
        let text = String(decoding: serialise(minimal), as: UTF8.self)
        #expect(text == #"{"ts":"1970-01-01T00:00:00.000Z","method":"HEAD","path":"/healthz","route":"health","status":503,"bytes":0,"range":false,"duration_ms":0.000,"instance":"i"}"# + "\n")
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_709_164_800_999, "2024-02-29T00:00:00.999Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
    ])
    func accessLog_timestampIsRFC3339UTCWithMilliseconds_SPEC6(milliseconds: Int64, expected: String) {
        var out: [UInt8] = []
        AccessLogRecord.appendTimestamp(milliseconds, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test(arguments: [
        "/models/a\"b\\c", "/models/\n\r\t\u{01}\u{1F}\u{7F}", "/models/é😀", "/%2e%2e/..//x", "/\u{2028}",
    ])
    func accessLog_oddPathsAreEscaped_SPEC6(path: String) throws {
        let bytes = serialise(record(path: path))
        #expect(!bytes.dropLast().contains { $0 < 0x20 })
        #expect(try JSONDecoder().decode(Line.self, from: Data(bytes)).path == path)
    }

    @Test func accessLog_pathStopsAtTheQuery_SPEC6() throws {
        let bytes = serialise(record(path: "/latest?sdk=1.0&client_id=\"x\""))
        #expect(try JSONDecoder().decode(Line.self, from: Data(bytes)).path == "/latest")
    }

    @Test func accessLog_closeFlushesEverything_SPEC6() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/access-i-1.log"
        let writer = try AccessLogWriter(destination: .file(path: path, maxBytes: 0, keep: 3), flushInterval: .seconds(60))
        for index in 0..<10_000 { writer.append(record(index: index)) }
        writer.close()
        writer.close()
        writer.append(record(index: -1))
        let written = try lines(ofFile: path)
        #expect(written.count == 10_000)
        #expect(written.map(\.bytes) == (0..<10_000).map(Int64.init))
    }

    @Test func accessLog_flushWritesWhatWasAppended_SPEC6() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/a.log"
        let writer = try AccessLogWriter(destination: .file(path: path, maxBytes: 0, keep: 0), flushInterval: .seconds(60))
        defer { writer.close() }
        writer.append(record(index: 1))
        writer.flush()
        #expect(try lines(ofFile: path).map(\.bytes) == [1])
        writer.append(record(index: 2))
        writer.flush()
        #expect(try lines(ofFile: path).map(\.bytes) == [1, 2])
    }

    @Test func accessLog_rotatesAtTheSizeKeepingN_SPEC6() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/a.log"
        let lineSize = serialise(record(index: 10)).count
        let maxBytes = Int64(lineSize * 3 + lineSize / 2)  // three lines fit, the fourth rotates
        let writer = try AccessLogWriter(destination: .file(path: path, maxBytes: maxBytes, keep: 2), flushInterval: .seconds(60))
        for index in 10..<20 { writer.append(record(index: index)) }
        writer.close()

        #expect(try lines(ofFile: path).map(\.bytes) == [19])
        #expect(try lines(ofFile: path + ".1").map(\.bytes) == [16, 17, 18])
        #expect(try lines(ofFile: path + ".2").map(\.bytes) == [13, 14, 15])
        #expect(!FileManager.default.fileExists(atPath: path + ".3"))
        for suffix in ["", ".1", ".2"] {
            let size = try FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int ?? .max
            #expect(size <= maxBytes)
        }
    }

    @Test func accessLog_reopenedFileContinuesItsSize_SPEC6() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/a.log"
        let lineSize = Int64(serialise(record(index: 10)).count)
        for index in 10..<12 {
            let writer = try AccessLogWriter(destination: .file(path: path, maxBytes: lineSize, keep: 1))
            writer.append(record(index: index))
            writer.close()
        }
        #expect(try lines(ofFile: path).map(\.bytes) == [11])
        #expect(try lines(ofFile: path + ".1").map(\.bytes) == [10])
    }

    @Test func accessLog_unopenableFileFailsAtStart_SPEC6() {
        #expect(throws: AccessLogError.self) {
            try AccessLogWriter(destination: .file(path: "/nonexistent-dir/a.log", maxBytes: 0, keep: 0))
        }
    }

    @Test func accessLog_stalledWriterDropsAndCountsInsteadOfBlocking_SPEC6() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/stalled.fifo"
        #expect(mkfifo(path, 0o600) == 0)
        // A reader that reads nothing until the end: the pipe fills and the writer thread stalls.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let dropped = Mutex(0)
        let writer = try AccessLogWriter(destination: .file(path: path, maxBytes: 0, keep: 0),
                                         flushInterval: .milliseconds(1), maxPendingRecords: 100,
                                         onDropped: { count in dropped.withLock { $0 += count } })
        let total = 5_000  // ~1 MB of lines, far more than a pipe holds
        for index in 0..<total { writer.append(record(index: index)) }

        _ = fcntl(reader, F_SETFL, 0)
        let closing = Task.detached { writer.close() }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received += buffer[..<n]
        }
        await closing.value

        let lines = received.split(separator: UInt8(ascii: "\n"))
        #expect(dropped.withLock { $0 } > 0)
        #expect(lines.count + dropped.withLock { $0 } == total)
        #expect(try lines.allSatisfy { try JSONDecoder().decode(Line.self, from: Data($0)).instance == "i-1" })
    }
}
