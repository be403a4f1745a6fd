/// A zip reader after Go's `archive/zip`: the central directory is read and checked first (the
/// end record, ZIP64 when the 32-bit fields overflow, every entry's path, type, encryption and
/// the bomb limits), and each entry's local header must agree with it before its data is read;
/// the data must then inflate to exactly the declared size with the declared CRC-32.
///
/// Stored and deflated entries only; one disk; names must be valid UTF-8. Nothing is written:
/// ``extract(_:into:)`` hands the bytes to the caller.
public struct ZipReader<Source: ZipSource> {
    public let source: Source
    /// In central-directory order.
    public let entries: [ZipEntry]
    /// Where the central directory starts: every entry's data must end before it.
    private let centralDirectoryOffset: Int64

    public init(_ source: Source, limits: ZipLimits = ZipLimits()) throws {
        self.source = source
        let end = try EndRecord.find(in: source)
        guard end.centralDirectorySize <= limits.maxCentralDirectory else {
            throw ZipError.tooLarge("central directory of \(end.centralDirectorySize) bytes")
        }
        guard end.entryCount <= end.centralDirectorySize / 46 else {
            throw ZipError.malformed("\(end.entryCount) entries cannot fit in a central directory of \(end.centralDirectorySize) bytes")
        }
        let directory = try source.read(at: end.centralDirectoryOffset, count: Int(end.centralDirectorySize))
        var reader = LittleEndianReader(directory)
        var entries: [ZipEntry] = []
        var total: Int64 = 0
        var files = Set<String>(), directories = Set<String>()
        let budget = min(limits.maxTotal, source.size.multipliedReportingOverflow(by: limits.ratio).overflow ? Int64.max : source.size * limits.ratio)
        for _ in 0..<end.entryCount {
            let entry = try Self.parseCentralEntry(&reader, directoryOffset: end.centralDirectoryOffset)
            let parts = try ZipPath.components(of: entry.name)
            let path = parts.joined(separator: "/")
            // A path may be a file or a directory, once: a second entry would overwrite the
            // first, or need a file where a directory was made.
            var parents = (1..<max(1, parts.count)).map { parts[..<$0].joined(separator: "/") }
            if entry.isDirectory { parents.append(path) } else {
                guard files.insert(path).inserted else { throw ZipError.unsafePath("'\(path)' appears twice") }
                if directories.contains(path) { throw ZipError.unsafePath("'\(path)' is both a file and a directory") }
            }
            for directory in parents where directories.insert(directory).inserted && files.contains(directory) {
                throw ZipError.unsafePath("'\(directory)' is both a file and a directory")
            }
            if entry.isDirectory, entry.uncompressedSize != 0 || entry.compressedSize != 0 {
                throw ZipError.sizeMismatch("directory '\(path)' declares data")
            }
            guard entry.localHeaderOffset + 30 <= end.centralDirectoryOffset else {
                throw ZipError.malformed("'\(path)' has its local header at \(entry.localHeaderOffset), past the entries' data")
            }
            total += entry.uncompressedSize  // no overflow: total ≤ 64 GiB before, each entry < 2^62
            guard total <= budget else {
                throw ZipError.tooLarge("declared \(total)+ bytes from a \(source.size)-byte file (limit \(budget))")
            }
            entries.append(entry)
        }
        guard reader.remaining == 0 else { throw ZipError.malformed("\(reader.remaining) stray bytes after the central directory's entries") }
        self.entries = entries
        self.centralDirectoryOffset = end.centralDirectoryOffset
    }

    // MARK: Central directory

    private static func parseCentralEntry(_ r: inout LittleEndianReader, directoryOffset: Int64) throws -> ZipEntry {
        guard try r.u32() == 0x0201_4b50 else { throw ZipError.malformed("bad central directory entry signature") }
        let madeBy = try r.u16()
        _ = try r.u16()  // version needed: the method and flags checks below say what matters
        let flags = try r.u16()
        let method = try r.u16()
        _ = try r.u32()  // modification time and date: not restored
        let crc = try r.u32()
        var compressed = UInt64(try r.u32())
        var uncompressed = UInt64(try r.u32())
        let nameLength = Int(try r.u16()), extraLength = Int(try r.u16()), commentLength = Int(try r.u16())
        let disk = try r.u16()
        _ = try r.u16()  // internal attributes
        let external = try r.u32()
        var offset = UInt64(try r.u32())
        let nameBytes = try r.take(nameLength)
        let extra = try r.take(extraLength)
        _ = try r.take(commentLength)

        // Decoding replaces invalid UTF-8, so a name that does not round-trip was not UTF-8.
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard Array(name.utf8) == nameBytes else { throw ZipError.unsafePath("a name that is not UTF-8") }
        let shown = ZipPath.printable(name)
        // ZIP64 extra field (0x0001): the 64-bit value of each 32-bit field that holds 0xFFFFFFFF, in this order.
        if uncompressed == 0xFFFF_FFFF || compressed == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            guard var zip64 = try Self.extraField(0x0001, in: extra) else { throw ZipError.malformed("'\(shown)' lacks its ZIP64 sizes") }
            if uncompressed == 0xFFFF_FFFF { uncompressed = try zip64.u64() }
            if compressed == 0xFFFF_FFFF { compressed = try zip64.u64() }
            if offset == 0xFFFF_FFFF { offset = try zip64.u64() }
        }
        if flags & 0x0001 != 0 || method == 99 { throw ZipError.encrypted("'\(shown)'") }
        guard disk == 0 || disk == 0xFFFF else { throw ZipError.unsupported("'\(shown)' starts on disk \(disk)") }
        guard method == ZipEntry.stored || method == ZipEntry.deflated else {
            throw ZipError.unsupported("'\(shown)' uses compression method \(method)")
        }
        // Unix hosts keep the file type in the high half of the external attributes.
        if madeBy >> 8 == 3 {
            let type = (external >> 16) & 0o170000
            if type == 0o120000 { throw ZipError.notARegularFile("'\(shown)' is a symbolic link") }
            guard type == 0 || type == 0o100000 || type == 0o040000 else { throw ZipError.notARegularFile("'\(shown)' has file type \(String(type, radix: 8))") }
            if type == 0o040000, !name.hasSuffix("/") { throw ZipError.notARegularFile("'\(shown)' is a directory without a trailing /") }
        }
        let limit = UInt64(directoryOffset)
        guard compressed <= limit, uncompressed < UInt64(Int64.max) / 2, offset <= limit else {
            throw ZipError.malformed("'\(shown)' declares sizes or an offset outside the file")
        }
        if method == ZipEntry.stored, compressed != uncompressed {
            throw ZipError.sizeMismatch("stored '\(shown)' declares \(compressed) bytes packed and \(uncompressed) unpacked")
        }
        return ZipEntry(name: name, method: method, flags: flags, crc32: crc, compressedSize: Int64(compressed),
                        uncompressedSize: Int64(uncompressed), localHeaderOffset: Int64(offset))
    }

    /// The body of the extra field `id`, if present.
    static func extraField(_ id: UInt16, in extra: [UInt8]) throws -> LittleEndianReader? {
        var r = LittleEndianReader(extra)
        while r.remaining >= 4 {
            let tag = try r.u16(), length = Int(try r.u16())
            let body = try r.take(length)
            if tag == id { return LittleEndianReader(body) }
        }
        return nil
    }

    // MARK: Entry data

    /// Streams the entry's unpacked bytes to `sink` in pieces, after checking its local header
    /// against the central directory; throws if the data does not unpack to exactly the declared
    /// size and CRC-32 (`sink` may then have received a prefix: unpack into a temporary place).
    public func extract(_ entry: ZipEntry, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let shown = ZipPath.printable(entry.name)
        let start = try checkLocalHeader(entry)
        guard start + entry.compressedSize <= centralDirectoryOffset else {
            throw ZipError.malformed("'\(shown)' data runs into the central directory")
        }
        var crc = CRC32()
        var produced: Int64 = 0
        func counted(_ piece: UnsafeRawBufferPointer) throws {
            produced += Int64(piece.count)
            guard produced <= entry.uncompressedSize else {
                throw ZipError.sizeMismatch("'\(shown)' unpacks to more than its declared \(entry.uncompressedSize) bytes")
            }
            crc.update(piece)
            try sink(piece)
        }
        let inflater = entry.method == ZipEntry.deflated ? try RawInflater() : nil
        var offset = start
        let end = start + entry.compressedSize
        repeat {
            let chunk = try source.read(at: offset, count: Int(min(Int64(RawInflater.chunkSize), end - offset)))
            offset += Int64(chunk.count)
            if let inflater {
                // Deflate data ends by itself: it must end exactly at the declared compressed size.
                if try inflater.inflate(chunk, isLast: offset == end, output: counted), offset != end {
                    throw ZipError.sizeMismatch("'\(shown)' deflate data ends before its declared \(entry.compressedSize) bytes")
                }
            } else {
                try chunk.withUnsafeBytes(counted)
            }
        } while offset < end
        guard produced == entry.uncompressedSize else {
            throw ZipError.sizeMismatch("'\(shown)' unpacks to \(produced) bytes, not the declared \(entry.uncompressedSize)")
        }
        guard crc.value == entry.crc32 else { throw ZipError.sizeMismatch("'\(shown)' CRC-32 differs from its header") }
        if entry.flags & 0x0008 != 0 { try checkDataDescriptor(entry, at: end) }
    }

    /// Checks the local header against the central entry; returns where the data starts.
    private func checkLocalHeader(_ entry: ZipEntry) throws -> Int64 {
        let shown = ZipPath.printable(entry.name)
        var r = LittleEndianReader(try source.read(at: entry.localHeaderOffset, count: 30))
        guard try r.u32() == 0x0403_4b50 else { throw ZipError.malformed("'\(shown)' has no local header at \(entry.localHeaderOffset)") }
        _ = try r.u16()
        let flags = try r.u16(), method = try r.u16()
        _ = try r.u32()
        let crc = try r.u32()
        var compressed = UInt64(try r.u32()), uncompressed = UInt64(try r.u32())
        let nameLength = Int64(try r.u16()), extraLength = Int64(try r.u16())
        guard entry.localHeaderOffset + 30 + nameLength + extraLength <= centralDirectoryOffset else {
            throw ZipError.malformed("'\(shown)' local header runs into the central directory")
        }
        let variable = try source.read(at: entry.localHeaderOffset + 30, count: Int(nameLength + extraLength))
        guard Array(variable.prefix(Int(nameLength))) == Array(entry.name.utf8) else {
            throw ZipError.malformed("'\(shown)' is named differently in its local header")
        }
        if flags & 0x0001 != 0 { throw ZipError.encrypted("'\(shown)' (local header)") }
        guard method == entry.method else { throw ZipError.malformed("'\(shown)' local header names method \(method), not \(entry.method)") }
        if flags & 0x0008 == 0 {
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF,
               var zip64 = try Self.extraField(0x0001, in: Array(variable.dropFirst(Int(nameLength)))) {
                if uncompressed == 0xFFFF_FFFF { uncompressed = try zip64.u64() }
                if compressed == 0xFFFF_FFFF { compressed = try zip64.u64() }
            }
            guard crc == entry.crc32, compressed == UInt64(entry.compressedSize), uncompressed == UInt64(entry.uncompressedSize) else {
                throw ZipError.sizeMismatch("'\(shown)' local header declares \(compressed)/\(uncompressed) bytes (crc \(crc)), the central directory \(entry.compressedSize)/\(entry.uncompressedSize) (crc \(entry.crc32))")
            }
        }
        return entry.localHeaderOffset + 30 + nameLength + extraLength
    }

    /// A data descriptor (flag bit 3) follows the data: optional signature, CRC, sizes (32- or
    /// 64-bit). It must agree with the central directory.
    private func checkDataDescriptor(_ entry: ZipEntry, at offset: Int64) throws {
        let shown = ZipPath.printable(entry.name)
        let available = Int(min(24, centralDirectoryOffset - offset))
        let bytes = try source.read(at: offset, count: available)
        var r = LittleEndianReader(bytes, at: bytes.starts(with: [0x50, 0x4b, 0x07, 0x08]) ? 4 : 0)
        let crc = try r.u32()
        let zip64 = entry.compressedSize >= 0xFFFF_FFFF || entry.uncompressedSize >= 0xFFFF_FFFF
        let compressed = zip64 ? try r.u64() : UInt64(try r.u32())
        let uncompressed = zip64 ? try r.u64() : UInt64(try r.u32())
        guard crc == entry.crc32, compressed == UInt64(entry.compressedSize), uncompressed == UInt64(entry.uncompressedSize) else {
            throw ZipError.sizeMismatch("'\(shown)' data descriptor disagrees with the central directory")
        }
    }
}

/// The end of central directory record (and its ZIP64 form when a field overflowed).
struct EndRecord {
    var entryCount: Int64
    var centralDirectorySize: Int64
    var centralDirectoryOffset: Int64

    static func find<Source: ZipSource>(in source: Source) throws -> EndRecord {
        guard source.size >= 22 else { throw ZipError.malformed("\(source.size) bytes is too short for a zip file") }
        let tailLength = Int(min(source.size, 22 + 0xFFFF))
        let tailStart = source.size - Int64(tailLength)
        let tail = try source.read(at: tailStart, count: tailLength)
        // The last signature whose comment length reaches exactly to the end of the file.
        var found: Int?
        for i in stride(from: tailLength - 22, through: 0, by: -1)
        where tail[i] == 0x50 && tail[i + 1] == 0x4b && tail[i + 2] == 0x05 && tail[i + 3] == 0x06 {
            let comment = Int(tail[i + 20]) | Int(tail[i + 21]) << 8
            if i + 22 + comment == tailLength { found = i; break }
        }
        guard let at = found else { throw ZipError.malformed("no end of central directory record") }
        var r = LittleEndianReader(tail, at: at + 4)
        let disk = try r.u16(), directoryDisk = try r.u16()
        let onDisk = try r.u16(), count = try r.u16()
        let size = try r.u32(), offset = try r.u32()
        guard disk == 0 || disk == 0xFFFF, directoryDisk == 0 || directoryDisk == 0xFFFF, onDisk == count else {
            throw ZipError.unsupported("an archive split over several disks")
        }
        let endOffset = tailStart + Int64(at)
        var record = EndRecord(entryCount: Int64(count), centralDirectorySize: Int64(size), centralDirectoryOffset: Int64(offset))
        var directoryEnd = endOffset
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            (record, directoryEnd) = try zip64(in: source, endOffset: endOffset)
        }
        guard record.centralDirectoryOffset >= 0, record.centralDirectorySize >= 0,
              record.centralDirectoryOffset + record.centralDirectorySize == directoryEnd else {
            throw ZipError.malformed("the central directory does not end where the end record starts")
        }
        return record
    }

    private static func zip64<Source: ZipSource>(in source: Source, endOffset: Int64) throws -> (EndRecord, Int64) {
        guard endOffset >= 20 + 56 else { throw ZipError.malformed("no ZIP64 locator") }
        var locator = LittleEndianReader(try source.read(at: endOffset - 20, count: 20))
        guard try locator.u32() == 0x0706_4b50 else { throw ZipError.malformed("no ZIP64 locator") }
        guard try locator.u32() == 0 else { throw ZipError.unsupported("an archive split over several disks") }
        let recordOffset = try locator.u64()
        guard try locator.u32() <= 1 else { throw ZipError.unsupported("an archive split over several disks") }
        guard recordOffset <= UInt64(endOffset - 20 - 56) else { throw ZipError.malformed("the ZIP64 end record is outside the file") }
        var r = LittleEndianReader(try source.read(at: Int64(recordOffset), count: 56))
        guard try r.u32() == 0x0606_4b50 else { throw ZipError.malformed("bad ZIP64 end record signature") }
        _ = try r.u64()  // record size
        _ = try r.u16(); _ = try r.u16()  // versions
        guard try r.u32() == 0, try r.u32() == 0 else { throw ZipError.unsupported("an archive split over several disks") }
        let onDisk = try r.u64(), count = try r.u64(), size = try r.u64(), offset = try r.u64()
        guard onDisk == count, count < UInt64(Int64.max), size < UInt64(Int64.max), offset < UInt64(Int64.max) else {
            throw ZipError.malformed("bad ZIP64 end record")
        }
        return (EndRecord(entryCount: Int64(count), centralDirectorySize: Int64(size), centralDirectoryOffset: Int64(offset)), Int64(recordOffset))
    }
}
