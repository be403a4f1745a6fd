import ChildProcesses
import Foundation

/// Writes zip archives byte by byte, so a test can break exactly one field (APPNOTE 4.3).
struct ZipBuilder {
    struct Entry {
        var name: String
        var data: [UInt8] = []
        /// The bytes stored for `data` (nil: `data` itself, method 0).
        var packed: [UInt8]?
        var method: UInt16 = 0
        var flags: UInt16 = 0
        /// Unix host (3) and a regular file, mode 644.
        var madeBy: UInt16 = 3 << 8 | 20
        var external: UInt32 = 0o100644 << 16
        /// Central-directory overrides of what `data` implies.
        var crc: UInt32?
        var size: UInt64?
        var packedSize: UInt64?
        /// Local-header overrides.
        var localSize: UInt64?
        var localName: String?
        /// Sizes go in a ZIP64 extra field (central directory only).
        var zip64 = false
        /// A data descriptor follows the data (flag bit 3), with these sizes.
        var descriptor: (crc: UInt32, packed: UInt32, size: UInt32)?
    }

    var entries: [Entry]

    func build() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for e in entries {
            let offset = UInt32(out.count)
            let packed = e.packed ?? e.data
            let crc = e.crc ?? crc32(e.data)
            let name = Array(e.name.utf8)
            let localName = Array((e.localName ?? e.name).utf8)
            out += le32(0x0403_4b50) + le16(20) + le16(e.flags) + le16(e.method) + le32(0)
            if e.descriptor != nil {
                out += le32(0) + le32(0) + le32(0)
            } else {
                let localPacked = e.packedSize ?? UInt64(packed.count), localSize = e.localSize ?? e.size ?? UInt64(e.data.count)
                out += le32(crc) + le32(UInt32(truncatingIfNeeded: localPacked)) + le32(e.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: localSize))
            }
            out += le16(UInt16(localName.count)) + le16(0) + localName + packed
            if let d = e.descriptor { out += le32(0x0807_4b50) + le32(d.crc) + le32(d.packed) + le32(d.size) }

            let size = e.size ?? UInt64(e.data.count), packedSize = e.packedSize ?? UInt64(packed.count)
            let extra = e.zip64 ? le16(1) + le16(16) + le64(size) + le64(packedSize) : []
            central += le32(0x0201_4b50) + le16(e.madeBy) + le16(20) + le16(e.flags) + le16(e.method) + le32(0) + le32(crc)
            central += e.zip64 ? le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) : le32(UInt32(packedSize)) + le32(UInt32(size))
            central += le16(UInt16(name.count)) + le16(UInt16(extra.count)) + le16(0) + le16(0) + le16(0) + le32(e.external) + le32(offset)
            central += name + extra
        }
        let directoryOffset = UInt32(out.count)
        out += central
        out += le32(0x0605_4b50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(central.count)) + le32(directoryOffset) + le16(0)
        return out
    }
}

func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        crc ^= UInt32(b)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// An archive written by Python's zipfile (deflate, ZIP64, its own layout): `script` gets `z`,
/// a ZipFile open for writing.
func pythonZip(_ script: String) throws -> [UInt8] {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
    defer { try? FileManager.default.removeItem(at: file) }
    let python = try ChildProcess.run("/usr/bin/env", [
        "python3", "-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n\(script)\nz.close()", file.path,
    ])
    guard python.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: python.stderr]) }
    return [UInt8](try Data(contentsOf: file))
}
