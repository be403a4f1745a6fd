import ChildProcesses
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A file over 4 GiB published with `modelctl` and served with ranges across the 2 GiB and
/// 4 GiB marks (SPEC §3: sizes are 64-bit; §4.3: offsets and lengths 64-bit end to end).
@Suite(.serialized) final class CatalogLargeFileTests {
    static let size: Int64 = 4 << 30 + 1 << 20
    /// Offsets of 16 known bytes: the start, straddling 2 GiB and 4 GiB, the end.
    static let marks: [Int64] = [0, 2 << 30 - 8, 4 << 30 - 8, size - 16]

    static func markBytes(_ offset: Int64) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: offset &>> ($0 % 8 * 8)) ^ UInt8(truncatingIfNeeded: $0 * 17 + 1) }
    }

    @Test(.timeLimit(.minutes(5)))
    func over4GiB_publishedAndServedWithRangesAcross2And4GiB_SPEC3_4_3() throws {
        // The published copy is real data (the upload writes every byte). In RAM when there is
        // room: on disk, its 4 GiB of dirty pages made every other suite's fsync wait for them
        // (ext4 commits them with the journal), and the whole of `make test` slowed by minutes.
        let shm = URL(fileURLWithPath: "/dev/shm/modeld-large-\(UUID().uuidString)")
        var ram = statvfs()
        let inRAM = statvfs("/dev/shm", &ram) == 0 && Int64(ram.f_bavail) * Int64(ram.f_frsize) > Self.size + 2 << 30
        defer { if inRAM { try? FileManager.default.removeItem(at: shm) } }
        let fx = try CatalogFixture(server: try ModeldServer(models: inRAM ? shm : nil, empty: true))
        var fs = statvfs()
        try #require(statvfs(fx.server.modelsDir.path, &fs) == 0)
        let free = Int64(fs.f_bavail) * Int64(fs.f_frsize)
        try #require(free > Self.size + 2 << 30, "needs \(Self.size + 2 << 30) bytes free in \(fx.server.modelsDir.path), has \(free)")

        // Sparse source with known bytes at the marks.
        let source = fx.scratch.appendingPathComponent("llm.gguf")
        try #require(FileManager.default.createFile(atPath: source.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: source) }
        try #require(truncate(source.path, off_t(Self.size)) == 0)
        let fd = open(source.path, O_WRONLY)
        try #require(fd >= 0)
        for mark in Self.marks {
            let bytes = Self.markBytes(mark)
            #expect(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, 16, off_t(mark)) } == 16)
        }
        close(fd)

        // The independent digest runs on the other core while modelctl publishes.
        let oracle = try ChildProcess.start("/usr/bin/sha256sum", [source.path])
        let release = try fx.publish(source, ["--label", "llm"], timeout: .seconds(240))
        let expectedSHA = String(try oracle.wait(timeout: .seconds(240)).stdout.prefix(64))
        #expect(release["size"] as? Int64 == Self.size || release["size"] as? Int == Int(Self.size))
        #expect(release["sha256"] as? String == expectedSHA)
        let file = try #require(release["file"] as? String)
        let published = fx.server.modelsDir.appendingPathComponent(file)
        #expect((try FileManager.default.attributesOfItem(atPath: published.path)[.size] as? Int) == Int(Self.size))

        let latest = try fx.curl("/latest?sdk=1.0")
        #expect(latest.json?["size"] as? Int == Int(Self.size), "64-bit size in /latest")
        let head = try fx.curl("/models/\(file)", ["-I"])
        #expect(head.status == 200 && head.header("Content-Length") == "\(Self.size)")

        // Each mark, fetched with a range that straddles it.
        for mark in Self.marks {
            let r = try fx.curl("/models/\(file)", ["-r", "\(mark)-\(mark + 15)"])
            #expect(r.status == 206)
            #expect(r.header("Content-Range") == "bytes \(mark)-\(mark + 15)/\(Self.size)")
            #expect(Array(r.body) == Self.markBytes(mark), "bytes at \(mark)")
        }
        // Wider ranges over the marks: zeros around the known bytes.
        for mark in Self.marks.dropFirst().dropLast() {
            let from = mark - 4096, to = mark + 4096 + 15
            let r = try fx.curl("/models/\(file)", ["-r", "\(from)-\(to)"])
            #expect(r.status == 206 && r.body.count == 8208)
            var expected = [UInt8](repeating: 0, count: 8208)
            expected.replaceSubrange(4096..<4112, with: Self.markBytes(mark))
            #expect(Array(r.body) == expected)
        }
        // Open-ended from the 4 GiB mark, a suffix range, and an unsatisfiable one.
        let tail = try fx.curl("/models/\(file)", ["-r", "\(4 << 30 as Int64)-"])
        #expect(tail.status == 206 && tail.body.count == 1 << 20)
        #expect(tail.header("Content-Range") == "bytes \(4 << 30 as Int64)-\(Self.size - 1)/\(Self.size)")
        #expect(Array(tail.body.suffix(16)) == Self.markBytes(Self.size - 16))
        #expect(Array(tail.body.prefix(8)) == Array(Self.markBytes(4 << 30 - 8).suffix(8)))
        let suffix = try fx.curl("/models/\(file)", ["-r", "-16"])
        #expect(suffix.status == 206 && Array(suffix.body) == Self.markBytes(Self.size - 16))
        let beyond = try fx.curl("/models/\(file)", ["-H", "Range: bytes=\(Self.size)-"])
        #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */\(Self.size)")

        // One range spanning both marks: 2 GiB + a bit, counted by curl, not kept.
        let span = try ChildProcess.run(Curl.executable, ["-sS", "--noproxy", "*", "-o", "/dev/null", "-r", "\(2 << 30 - 100)-\(4 << 30 + 100)",
                                                          "-w", "%{http_code} %{size_download}", fx.base + "/models/\(file)"],
                                        timeout: .seconds(120))
        #expect(span.stdout == "206 \(4 << 30 + 100 - (2 << 30 - 100) + 1)", "\(span.stdout) \(span.stderr)")
    }
}
