import Foundation
import Testing
@testable import ZipArchive

/// The zip reader against archives built in the test (by hand or by Python's zipfile): what it
/// unpacks, and every refusal of SPEC §13.1.
@Suite struct ZipReaderTests {
    func unpack(_ bytes: [UInt8], limits: ZipLimits = ZipLimits()) throws -> [String: [UInt8]] {
        let reader = try ZipReader(BytesZipSource(bytes), limits: limits)
        var out: [String: [UInt8]] = [:]
        for entry in reader.entries {
            var data: [UInt8] = []
            try reader.extract(entry) { data += $0 }
            out[entry.name] = data
        }
        return out
    }

    func refusal(_ bytes: [UInt8], limits: ZipLimits = ZipLimits()) -> ZipError? {
        do { _ = try unpack(bytes, limits: limits); return nil } catch { return error as? ZipError }
    }

    @Test func storedAndDeflatedEntries_unpackToTheirBytes() throws {
        let hand = try unpack(ZipBuilder(entries: [.init(name: "dir/"), .init(name: "dir/a.bin", data: Array("hello".utf8)),
                                                   .init(name: "empty", data: [])]).build())
        #expect(hand == ["dir/": [], "dir/a.bin": Array("hello".utf8), "empty": []])

        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 5) }
        let python = try pythonZip("""
            z.writestr('model.mlpackage/Manifest.json', '{"a": 1}')
            z.writestr('model.mlpackage/Data/weights.bin', bytes((i * 7 // 5) % 256 for i in range(300000)))
            z.writestr('stored.txt', 'plain', compress_type=zipfile.ZIP_STORED)
            z.writestr('zero', '')
            """)
        let files = try unpack(python, limits: ZipLimits(ratio: 1000))  // the repeating weights compress ~100×
        #expect(files["model.mlpackage/Data/weights.bin"] == big)
        #expect(files["model.mlpackage/Manifest.json"] == Array(#"{"a": 1}"#.utf8))
        #expect(files["stored.txt"] == Array("plain".utf8) && files["zero"] == [])
    }

    @Test func dataDescriptorsAreCheckedAgainstTheCentralDirectory() throws {
        let data = Array("described".utf8)
        let good = ZipBuilder.Entry(name: "d", data: data, flags: 8, descriptor: (crc32(data), UInt32(data.count), UInt32(data.count)))
        #expect(try unpack(ZipBuilder(entries: [good]).build()) == ["d": data])
        var bad = good
        bad.descriptor = (crc32(data), UInt32(data.count), UInt32(data.count + 1))
        #expect(refusal(ZipBuilder(entries: [bad]).build()) == .sizeMismatch("'d' data descriptor disagrees with the central directory"))
    }

    @Test(arguments: [
        ("/etc/passwd", "absolute"), ("../escape", ".."), ("a/../../escape", ".."), ("a/..", ".."),
        ("a\\..\\b", "backslash"), ("a//b", "empty"), ("./a", "empty"), ("", "empty"),
    ])
    func unsafeNames_areRefusedBeforeAnythingIsRead(name: String, why: String) {
        let error = refusal(ZipBuilder(entries: [.init(name: "ok", data: [1]), .init(name: name, data: [1])]).build())
        guard case .unsafePath(let message) = error else { Issue.record("\(name): \(String(describing: error))"); return }
        #expect(message.contains(why) || (why == "backslash" && message.contains("backslash")), "\(message)")
    }

    @Test func duplicateAndFileDirectoryClashes_areRefused() {
        #expect(refusal(ZipBuilder(entries: [.init(name: "a", data: [1]), .init(name: "a", data: [2])]).build()) == .unsafePath("'a' appears twice"))
        #expect(refusal(ZipBuilder(entries: [.init(name: "a", data: [1]), .init(name: "a/b", data: [2])]).build()) == .unsafePath("'a' is both a file and a directory"))
    }

    @Test func symlinksAndSpecialFiles_areRefused() {
        let link = ZipBuilder.Entry(name: "link", data: Array("/etc/passwd".utf8), external: 0o120777 << 16)
        #expect(refusal(ZipBuilder(entries: [link]).build()) == .notARegularFile("'link' is a symbolic link"))
        let fifo = ZipBuilder.Entry(name: "fifo", external: 0o010644 << 16)
        #expect(refusal(ZipBuilder(entries: [fifo]).build()) == .notARegularFile("'fifo' has file type 10000"))
        // A Windows host (0) has no Unix mode: the same bits mean nothing there.
        #expect(refusal(ZipBuilder(entries: [.init(name: "w", data: [1], madeBy: 20, external: 0o120777 << 16)]).build()) == nil)
    }

    @Test func encryptedEntries_areRefused() {
        #expect(refusal(ZipBuilder(entries: [.init(name: "secret", data: [1, 2], flags: 1)]).build()) == .encrypted("'secret'"))
        #expect(refusal(ZipBuilder(entries: [.init(name: "aes", data: [1, 2], method: 99)]).build()) == .encrypted("'aes'"))
    }

    @Test func sizesThatDisagree_areRefused() throws {
        let data = Array("0123456789".utf8)
        // Local header says 9, central directory 10.
        #expect(refusal(ZipBuilder(entries: [.init(name: "f", data: data, localSize: 9)]).build())?.isSizeMismatch == true)
        // Stored with different packed and unpacked sizes.
        #expect(refusal(ZipBuilder(entries: [.init(name: "f", data: data, size: 11)]).build())?.isSizeMismatch == true)
        // Deflate data that unpacks to more (and to fewer) bytes than declared, headers consistent.
        let python = try pythonZip("z.writestr('f', b'x' * 1000)")
        for declared in [999, 1001] {
            var patched = python
            patchUncompressedSize(&patched, name: "f", to: UInt32(declared))
            #expect(refusal(patched)?.isSizeMismatch == true, "declared \(declared)")
        }
        // A CRC that does not match the data.
        #expect(refusal(ZipBuilder(entries: [.init(name: "f", data: data, crc: 1)]).build())?.isSizeMismatch == true)
        // Another name in the local header.
        #expect(refusal(ZipBuilder(entries: [.init(name: "f", data: data, localName: "g")]).build()) == .malformed("'f' is named differently in its local header"))
    }

    @Test func bombLimits_refuseBeforeUnpacking() throws {
        // 21× the archive's size declared (the data would inflate to it).
        let python = try pythonZip("z.writestr('bomb', b'\\0' * 2_000_000)")
        #expect(python.count * 20 < 2_000_000)
        guard case .tooLarge = refusal(python) else { Issue.record("not refused as too large"); return }
        #expect(try unpack(python, limits: ZipLimits(ratio: 2_000_000))["bomb"]?.count == 2_000_000)
        // Over 64 GiB in all, whatever the ratio allows (ZIP64 sizes).
        let huge = ZipBuilder.Entry(name: "huge", data: [], packed: [3, 0], method: 8, size: (64 << 30) + 1, zip64: true)
        #expect(refusal(ZipBuilder(entries: [huge]).build(), limits: ZipLimits(ratio: Int64.max / 2)).map { "\($0)" }?.contains("limit 68719476736") == true)
    }

    @Test func brokenStructure_isMalformedNotACrash() {
        let good = ZipBuilder(entries: [.init(name: "a", data: Array("abc".utf8))]).build()
        #expect(refusal([]) == .malformed("0 bytes is too short for a zip file"))
        for cut in [1, 10, 22, good.count - 5] {
            #expect(refusal(Array(good.prefix(good.count - cut))) != nil, "cut \(cut)")
        }
        var wrongOffset = good
        wrongOffset[wrongOffset.count - 6] &+= 1  // central directory offset
        #expect(refusal(wrongOffset) != nil)
    }

    @Test func unsupportedMethodsAndMultiDisk_areRefused() {
        #expect(refusal(ZipBuilder(entries: [.init(name: "b", data: [1], method: 12)]).build()) == .unsupported("'b' uses compression method 12"))
        var split = ZipBuilder(entries: [.init(name: "a", data: [1])]).build()
        split[split.count - 18] = 1  // disk number of the end record
        #expect(refusal(split) == .unsupported("an archive split over several disks"))
    }

    /// Sets the uncompressed size of `name` in both its local header and its central entry.
    private func patchUncompressedSize(_ bytes: inout [UInt8], name: String, to size: UInt32) {
        let nameBytes = Array(name.utf8)
        for i in 0..<(bytes.count - 4) {
            let sig = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            if sig == 0x0403_4b50, Array(bytes[(i + 30)..<(i + 30 + nameBytes.count)]) == nameBytes {
                bytes.replaceSubrange((i + 22)..<(i + 26), with: le32(size))
            }
            if sig == 0x0201_4b50, Array(bytes[(i + 46)..<(i + 46 + nameBytes.count)]) == nameBytes {
                bytes.replaceSubrange((i + 24)..<(i + 28), with: le32(size))
            }
        }
    }
}

extension ZipError {
    var isSizeMismatch: Bool { if case .sizeMismatch = self { true } else { false } }
}
