import CZlib

/// Deflates planes (RFC 1950) two ways and keeps the smaller: zlib's default strategy at the
/// encoder's level, whose long matches find tensors a model repeats (silero-vad's planes: 0.78
/// against 0.86 with runs alone), and `Z_RLE`, matches at distance 1 only, whose Huffman codes
/// fit the short runs of exponent bytes and of a fine-tune's XOR better (generated float32
/// pack 0.834 against 0.850, float16 patch 0.215 against 0.251) at a quarter of the time. Runs
/// go first and bound the default one, which stops as soon as it cannot beat them. Both are
/// plain zlib streams: the reader inflates either without knowing which.
final class PlaneDeflater {
    private let full: DeflateStream, runs: DeflateStream
    private var trial = ScratchBuffer()

    init(level: Int32) {
        full = DeflateStream(level: level, memoryLevel: 8, strategy: Z_DEFAULT_STRATEGY)
        // memLevel 9: longer Huffman blocks, a little smaller on plane bytes (8 is zlib's default).
        runs = DeflateStream(level: level, memoryLevel: 9, strategy: Z_RLE)
    }

    /// Deflates `input` into `output` and answers the coded length, or nil when neither coding
    /// fits in `output` (the caller sizes it one byte short of the input: not smaller = stored).
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        let trial = self.trial.prefix(output.count)
        guard let short = runs.deflate(input, into: trial) else { return full.deflate(input, into: output) }
        if let n = full.deflate(input, into: UnsafeMutableRawBufferPointer(rebasing: output[0..<short - 1])) { return n }
        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: trial[0..<short]))
        return short
    }
}

/// One zlib deflate stream reused for every plane: `deflateReset` keeps the window and tables,
/// where a fresh stream per plane would allocate and clear ~256 KiB each time.
final class DeflateStream {
    // Heap-allocated: zlib keeps a back-pointer to the stream and rejects one that moved.
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int32, memoryLevel: Int32, strategy: Int32) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Fails only on out-of-memory, an invalid level or a zlib ABI mismatch: none a caller can handle.
        let rc = deflateInit2_(stream, level, Z_DEFLATED, MAX_WBITS, memoryLevel, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "deflateInit failed: \(rc)")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// The coded length, or nil when the coding does not fit in `output`.
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard !output.isEmpty else { return nil }
        deflateReset(stream)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(input.count)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(output.count)
        defer { stream.pointee.next_in = nil; stream.pointee.next_out = nil }
        let rc = CZlib.deflate(stream, Z_FINISH)
        guard rc == Z_STREAM_END else { return nil }   // Z_OK or Z_BUF_ERROR: the output is full
        return output.count - Int(stream.pointee.avail_out)
    }
}

/// One zlib inflate stream reused for every plane. Inflation is exact: a plane's coding must
/// end where its length says and give exactly the plane's bytes, never more. zlib's Adler-32 of
/// the plane is not computed (`inflateValidate`, as libpng does): the block's SHA-256 checks the
/// same bytes, so it was a pass over every inflated byte for nothing (3–6 % of decoding). Its
/// four bytes must still be there; a flip inside them changes no decoded byte and is accepted.
final class PlaneInflater {
    private let stream: UnsafeMutablePointer<z_stream>

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "inflateInit failed: \(rc)")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates all of `input` into exactly all of `output`; the error names what was wrong.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> String? {
        inflateReset(stream)
        inflateValidate(stream, 0)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = UInt32(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(output.count)
        defer { stream.pointee.next_in = nil; stream.pointee.next_out = nil }
        let rc = CZlib.inflate(stream, Z_FINISH)
        switch rc {
        case Z_STREAM_END where stream.pointee.avail_out != 0: return "inflates to fewer bytes than the plane holds"
        case Z_STREAM_END where stream.pointee.avail_in != 0: return "has bytes after the end of its zlib stream"
        case Z_STREAM_END: return nil
        case Z_BUF_ERROR where stream.pointee.avail_out == 0: return "does not end where the plane does"
        case Z_BUF_ERROR: return "zlib stream is cut short"
        default: return "is not valid zlib data (zlib \(rc))"
        }
    }
}
