import CZlib

/// Raw deflate (no zlib or gzip wrapper), as zip stores it, streamed in pieces.
final class RawInflater {
    static let chunkSize = 64 * 1024
    // Heap-allocated: zlib keeps a back-pointer to the stream and rejects one that moved.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutablePointer<UInt8>
    private var ended = false

    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: Self.chunkSize)
        guard inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            throw ZipError.malformed("zlib could not start")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates `input`, handing each produced piece to `output`; true once the deflate stream
    /// has ended (bytes after its end are an error). `isLast`: no more input follows.
    func inflate(_ input: [UInt8], isLast: Bool, output: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        if ended {
            guard input.isEmpty else { throw ZipError.sizeMismatch("bytes after the end of the deflate data") }
            return true
        }
        try input.withUnsafeBufferPointer { piece in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: piece.baseAddress)
            stream.pointee.avail_in = UInt32(piece.count)
            defer { stream.pointee.next_in = nil }
            while true {
                stream.pointee.next_out = scratch
                stream.pointee.avail_out = UInt32(Self.chunkSize)
                let rc = CZlib.inflate(stream, Z_NO_FLUSH)
                let produced = Self.chunkSize - Int(stream.pointee.avail_out)
                if produced > 0 { try output(UnsafeRawBufferPointer(start: scratch, count: produced)) }
                switch rc {
                case Z_STREAM_END:
                    ended = true
                    guard stream.pointee.avail_in == 0 else { throw ZipError.sizeMismatch("bytes after the end of the deflate data") }
                    return
                case Z_OK where stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0: return
                case Z_OK: continue
                case Z_BUF_ERROR where stream.pointee.avail_in == 0: return
                default: throw ZipError.malformed("bad deflate data (zlib \(rc))")
                }
            }
        }
        if isLast, !ended { throw ZipError.sizeMismatch("deflate data is cut short") }
        return ended
    }
}

/// CRC-32 (zip's, the same as gzip's) through zlib.
struct CRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = UInt32(crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }
}
