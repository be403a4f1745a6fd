import CryptoPrimitives

/// The base a patch is applied to (an installed model, a file, bytes in memory).
public protocol PatchBase {
    var size: Int64 { get }
    /// Fills `buffer` with the base's bytes from `offset` (always within the base).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackError)
}

/// A base held in memory.
public struct BytesBase: PatchBase {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: Int64 { Int64(bytes.count) }
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackError) {
        buffer.copyBytes(from: bytes[Int(offset)..<Int(offset) + buffer.count])
    }
}

/// Decodes an MDPACK1 stream in pieces, as it arrives (SPEC §16): bytes go in with `append`,
/// decoded blocks come out of `nextBlock` once all of a block's bytes are in. Each block is
/// checked against its SHA-256 before it is handed out, and the whole output against the
/// header's when the stream was read from its start. Memory: the index (44 bytes per MiB of
/// output), one block being decoded, its buffers (~3 MiB), and whatever the caller appends before
/// draining: feed it pieces, not the file.
public struct PackStreamDecoder {
    public private(set) var header: PackHeader?
    /// The next block to decode; `header.blockCount` once all are out.
    public private(set) var blockIndex = 0
    private let base: (any PatchBase)?
    private var pending: [UInt8] = []
    private var start = 0
    private let decoder = BlockDecoder()
    /// The last block handed out, decoded over when the caller let go of it.
    private var output: [UInt8] = []
    private var wholeFile: SHA256?

    public init(base: (any PatchBase)? = nil) {
        self.base = base
        wholeFile = SHA256()
    }

    /// Resumes at `block` of a stream whose header was read before: the bytes appended next are
    /// the ones from that block's offset. Only blocks are checked then (the whole file's
    /// SHA-256 is the caller's, over the file it rebuilt).
    public init(resuming header: PackHeader, at block: Int, base: (any PatchBase)? = nil) throws(PackError) {
        precondition((0...header.blockCount).contains(block), "no block \(block)")
        self.base = base
        self.header = header
        blockIndex = block
        if block == 0 { wholeFile = SHA256() }
        try checkBase(header)
    }

    public var isFinished: Bool { header.map { blockIndex == $0.blockCount } ?? false }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { pending += bytes }

    /// The next decoded block, or nil until more bytes are appended (or after the last block).
    public mutating func nextBlock() throws(PackError) -> [UInt8]? {
        if header == nil {
            guard pending.count - start >= PackHeader.fixedSize else { return nil }
            let size = try PackHeader.encodedSize(fixed: pending[start..<start + PackHeader.fixedSize])
            guard pending.count - start >= size else { return nil }
            let parsed = try PackHeader(decoding: Array(pending[start..<start + size]))
            try checkBase(parsed)
            header = parsed
            consume(size)
            try checkWholeFile()
        }
        guard let header else { return nil }
        guard blockIndex < header.blockCount else {
            if pending.count > start { throw .trailingBytes }
            return nil
        }
        let length = header.codedLength(of: blockIndex)
        guard pending.count - start >= length else { return nil }
        let decodedLength = header.decodedLength(of: blockIndex)
        // Decoded into the array handed out last time, which the caller has let go of when it
        // writes each block and asks for the next: no allocation, no page faults. (A caller
        // still holding it gets its own copy from the array's copy-on-write.)
        if output.count != decodedLength { output = [UInt8](repeating: 0, count: decodedLength) }
        // A patch's block is decoded XORed into the base's bytes, read into the output first.
        let patch = header.kind == .patch
        if patch { try readBase(at: Int64(blockIndex) * Int64(PackHeader.blockSize)) }
        let (decoder, start, index) = (self.decoder, self.start, blockIndex)
        let failure: PackError? = pending.withUnsafeBytes { coded in
            output.withUnsafeMutableBytes { out in
                do throws(PackError) {
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: coded[start..<start + length]), width: header.width, index: index,
                                       into: out, xor: patch)
                    return nil
                } catch { return error }
            }
        }
        if let failure { throw failure }
        var hasher = SHA256()
        output.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        guard hasher.finalize().elementsEqual(header.digest(of: blockIndex)) else { throw .blockDigestMismatch(index: blockIndex) }
        output.withUnsafeBytes { wholeFile?.update(bufferPointer: $0) }
        consume(length)
        blockIndex += 1
        try checkWholeFile()
        return output
    }

    /// Called when the input has ended: refuses a stream cut short or with bytes left over.
    public func finish() throws(PackError) {
        guard isFinished else { throw .truncated }
        guard pending.count == start else { throw .trailingBytes }
    }

    private func checkBase(_ header: PackHeader) throws(PackError) {
        switch (header.kind, base) {
        case (.pack, nil): return
        case (.pack, _?): throw .wrongBase("this is a packed file, not a patch")
        case (.patch, nil): throw .wrongBase("a patch needs the file it was made from")
        case (.patch, let base?):
            guard base.size == header.baseSize else { throw .wrongBase("the base is \(base.size) bytes, the patch was made from \(header.baseSize)") }
        }
    }

    /// Puts the base's bytes at `offset` into the output block, zeros past the base's end (a
    /// patch's XOR leaves the new file's bytes there as they are).
    private mutating func readBase(at offset: Int64) throws(PackError) {
        guard let base else { return }
        let overlap = Int(max(0, min(Int64(output.count), base.size - offset)))
        let failure: PackError? = output.withUnsafeMutableBytes { out in
            do throws(PackError) {
                if overlap > 0 { try base.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: out[0..<overlap])) }
                UnsafeMutableRawBufferPointer(rebasing: out[overlap...]).initializeMemory(as: UInt8.self, repeating: 0)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
    }

    private mutating func checkWholeFile() throws(PackError) {
        guard let header, blockIndex == header.blockCount, let hasher = wholeFile else { return }
        wholeFile = nil
        guard hasher.finalize().elementsEqual(header.outputSHA256) else { throw .fileDigestMismatch }
    }

    /// Drops consumed bytes: at once when none are left, else once they are most of the buffer.
    private mutating func consume(_ count: Int) {
        start += count
        if start == pending.count {
            pending.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= PackHeader.blockSize, 2 * start >= pending.count {
            pending.removeSubrange(0..<start)
            start = 0
        }
    }
}
