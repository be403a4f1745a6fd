import Foundation
import Testing
@testable import ModelCatalog

/// What a published zip unpacks to (SPEC §3.2 `disk_bytes`), read by pread from its central
/// directory: archives written by Python's zipfile, a file that is no zip, a missing file.
@Suite struct ZipContentsTests {
    private func file(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("zipcontents-\(UUID().uuidString)-\(name)").path
    }

    /// Runs `script` with `z`, a deflating ZipFile open on `path`.
    private func pythonZip(_ path: String, _ script: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n\(script)\nz.close()", path]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
    }

    @Test func sumsTheEntriesUncompressedSizes_notTheZipsOwn() throws {
        let path = file("m.zip")
        defer { unlink(path) }
        try pythonZip(path, """
            import os
            z.writestr('model/weights.bin', os.urandom(100000) + b'a' * 900000)
            z.writestr('model/meta.json', b'{"v":1}', compress_type=zipfile.ZIP_STORED)
            """)
        let zipSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(ZipContents.unpackedSize(ofFileAt: path) == 1_000_007)
        #expect(zipSize < 200_000)
    }

    /// Past the client's own bomb limit (20×) the client refuses the zip, so none is recorded.
    @Test func aZipTheClientRefuses_isNil() throws {
        let path = file("bomb.zip")
        defer { unlink(path) }
        try pythonZip(path, "z.writestr('w.bin', b'a' * 1000000)")
        #expect(ZipContents.unpackedSize(ofFileAt: path) == nil)
    }

    @Test func anEmptyZip_unpacksToNothing() throws {
        let path = file("empty.zip")
        defer { unlink(path) }
        try pythonZip(path, "")
        #expect(ZipContents.unpackedSize(ofFileAt: path) == 0)
    }

    @Test func notAZip_orNoFile_isNil() throws {
        let path = file("junk.zip")
        defer { unlink(path) }
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        #expect(ZipContents.unpackedSize(ofFileAt: path) == nil)
        #expect(ZipContents.unpackedSize(ofFileAt: file("missing.zip")) == nil)
    }
}
