import BinaryText
import ContentDigest
import DurableFiles
import TensorPack
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MDPACK1 between files (SPEC §16), one block in memory at a time whatever the size: the file
/// is read front to back once (hashed on the way), a patch's base at the same offsets, and the
/// header and index written last into the room kept for them at the front.
public enum PackFiles {
    public struct Summary: Equatable, Sendable {
        /// The file's size (the new file's, for a patch).
        public let size: Int64
        /// The MDPACK1 file's size.
        public let coded: Int64
        public let width: Int
    }

    /// Packs `input`, or with `base` makes the patch from `base` to `input`, into `output` (a new
    /// file, fsynced; nil only measures). Nothing is left at `output` when it fails.
    public static func code(_ input: String, base basePath: String? = nil, to output: String?,
                            level: Int32 = PackEncoder.defaultLevel) throws(PackFileError) -> Summary {
        let fd = try open(input)
        defer { close(fd) }
        let size = try fileSize(fd, input)
        guard size <= PackHeader.maxOutputSize else { throw .tooLarge(input, size) }
        let base = try basePath.map { path throws(PackFileError) in try FileBase(path: path) }
        let blockCount = Int((size + Int64(PackHeader.blockSize) - 1) / Int64(PackHeader.blockSize))
        var block = [UInt8](repeating: 0, count: PackHeader.blockSize)
        var baseBlock = [UInt8](repeating: 0, count: PackHeader.blockSize)

        var samples: [[UInt8]] = []
        for i in TensorPack.sampleBlocks(blockCount: blockCount) {
            let offset = Int64(i) * Int64(PackHeader.blockSize)
            let length = Int(min(Int64(PackHeader.blockSize), size - offset))
            var sample = [UInt8](repeating: 0, count: length)
            try withBytes(&sample) { buffer throws(PackFileError) in try readFully(fd, input, at: offset, into: buffer) }
            if let base { try base.xor(at: offset, into: &sample, scratch: &baseBlock) }
            samples.append(sample)
        }
        var encoder = PackEncoder(kind: base == nil ? .pack : .patch, width: PackEncoder.chooseWidth(samples: samples, level: level), level: level)

        let out = try output.map { path throws(PackFileError) in try create(path) }
        defer { if let out { close(out) } }
        do throws(PackFileError) {
            let dataStart = Int64(PackHeader.fixedSize + blockCount * PackHeader.entrySize)
            if let out, lseek(out, off_t(dataStart), SEEK_SET) < 0 { throw .io(IOFailure(path: output!, operation: "seek", code: errno)) }
            var reader = HashingFileReader(fd: fd, path: input, length: size)
            var coded = dataStart
            for i in 0..<blockCount {
                let offset = Int64(i) * Int64(PackHeader.blockSize)
                let length = Int(min(Int64(PackHeader.blockSize), size - offset))
                try withBytes(&block) { buffer throws(PackFileError) in
                    try fill(&reader, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length]))
                }
                let overlap = try base?.read(at: offset, upTo: length, into: &baseBlock) ?? 0
                let bytes = block[0..<length].withUnsafeBytes { new in baseBlock[0..<overlap].withUnsafeBytes { encoder.encode(new, base: $0) } }
                if let out { try write(out, output!, bytes) }
                coded += Int64(bytes.count)
            }
            let header = encoder.header(outputSize: size, outputSHA256: Hex.decode(reader.hex())!,
                                        baseSize: base?.size ?? 0, baseSHA256: try base?.sha256() ?? [UInt8](repeating: 0, count: 32))
            if let out, let output {
                guard lseek(out, 0, SEEK_SET) == 0 else { throw .io(IOFailure(path: output, operation: "seek", code: errno)) }
                try write(out, output, header.encoded())
                do throws(IOFailure) { try DurableFile.sync(out, path: output) } catch { throw .io(error) }
            }
            return Summary(size: size, coded: coded, width: encoder.width)
        } catch {
            if let output { unlink(output) }
            throw error
        }
    }

    /// Decodes the MDPACK1 file at `path` (a patch onto `base`) into `output`, streaming in
    /// 1 MiB reads: every block and the whole file are checked. Answers the decoded size;
    /// nothing is left at `output` when it fails.
    @discardableResult
    public static func decode(_ path: String, base basePath: String? = nil, to output: String) throws(PackFileError) -> Int64 {
        let fd = try open(path)
        defer { close(fd) }
        let base = try basePath.map { path throws(PackFileError) in try FileBase(path: path) }
        var decoder = PackStreamDecoder(base: base)
        let out = try create(output)
        defer { close(out) }
        do throws(PackFileError) {
            var piece = [UInt8](repeating: 0, count: PackHeader.blockSize)
            var offset: Int64 = 0, written: Int64 = 0
            while true {
                let n = try withBytes(&piece) { buffer throws(PackFileError) in try readSome(fd, path, at: offset, into: buffer) }
                if n == 0 { break }
                offset += Int64(n)
                piece.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                while let block = try pack(path, { () throws(PackError) in try decoder.nextBlock() }) {
                    try write(out, output, block)
                    written += Int64(block.count)
                }
            }
            try pack(path) { () throws(PackError) in try decoder.finish() }
            do throws(IOFailure) { try DurableFile.sync(out, path: output) } catch { throw .io(error) }
            return written
        } catch {
            unlink(output)
            throw error
        }
    }

    /// `body` over the bytes of `array`, keeping its typed error (`withUnsafeMutableBytes` only
    /// rethrows untyped ones).
    static func withBytes<T>(_ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(PackFileError) -> T) throws(PackFileError) -> T {
        try array.withUnsafeMutableBytes { raw in Result { () throws(PackFileError) in try body(raw) } }.get()
    }

    private static func pack<T>(_ path: String, _ body: () throws(PackError) -> T) throws(PackFileError) -> T {
        do throws(PackError) { return try body() } catch { throw .pack(path, error) }
    }

    static func open(_ path: String) throws(PackFileError) -> Int32 {
        do throws(IOFailure) { return try DurableFile.open(path, O_RDONLY) } catch { throw .io(error) }
    }

    private static func create(_ path: String) throws(PackFileError) -> Int32 {
        do throws(IOFailure) { return try DurableFile.open(path, O_WRONLY | O_CREAT | O_TRUNC) } catch { throw .io(error) }
    }

    static func fileSize(_ fd: Int32, _ path: String) throws(PackFileError) -> Int64 {
        let end = lseek(fd, 0, SEEK_END)
        guard end >= 0 else { throw .io(IOFailure(path: path, operation: "seek", code: errno)) }
        return Int64(end)
    }

    private static func write(_ fd: Int32, _ path: String, _ bytes: [UInt8]) throws(PackFileError) {
        do throws(IOFailure) { try DurableFile.writeAll(fd, bytes, path: path) } catch { throw .io(error) }
    }

    private static func fill(_ reader: inout HashingFileReader, into buffer: UnsafeMutableRawBufferPointer) throws(PackFileError) {
        var at = 0
        while at < buffer.count {
            let n: Int
            do throws(IOFailure) { n = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[at...])) } catch { throw .io(error) }
            guard n > 0 else { throw .changed(reader.path) }
            at += n
        }
    }

    /// One `pread` (EINTR retried): 0 at the end of the file.
    static func readSome(_ fd: Int32, _ path: String, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackFileError) -> Int {
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw .io(IOFailure(path: path, operation: "read", code: errno)) }
        }
    }

    static func readFully(_ fd: Int32, _ path: String, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackFileError) {
        var at = 0
        while at < buffer.count {
            let n = try readSome(fd, path, at: offset + Int64(at), into: UnsafeMutableRawBufferPointer(rebasing: buffer[at...]))
            guard n > 0 else { throw .changed(path) }
            at += n
        }
    }
}
