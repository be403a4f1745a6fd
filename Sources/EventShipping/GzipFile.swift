import CZlib
import Foundation

/// Streaming gzip between files and memory for `events ship` / `export --from`: a 64 MiB
/// segment passes through 1 MiB buffers instead of being held whole, compressed or not.
enum GzipFile {
    /// Compresses the first `length` bytes of `source` into a new file `destination`.
    static func compress(_ source: String, length: Int, to destination: String) throws(CLIFailure) {
        guard let input = FileHandle(forReadingAtPath: source) else { throw CLIFailure("cannot open \(source)") }
        // Closing a file only read from cannot lose data.
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination, contents: nil),
              let output = FileHandle(forWritingAtPath: destination) else { throw CLIFailure("cannot create \(destination)") }
        defer { try? output.close() }
        var stream = z_stream()
        // Level 6: zlib's default trade-off; segments compress ~10x either way.
        guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw CLIFailure("zlib: deflateInit failed") }
        defer { deflateEnd(&stream) }
        var remaining = length
        repeat {
            let chunk = [UInt8](input.readData(ofLength: min(remaining, 1 << 20)))
            remaining -= chunk.count
            let finish = remaining == 0 || chunk.isEmpty
            if chunk.isEmpty && !finish { throw CLIFailure("\(source) shrank while it was read") }
            try pump(&stream, chunk, to: output) { deflate(&$0, finish ? Z_FINISH : Z_NO_FLUSH) }
            if finish { break }
        } while true
    }

    /// Inflates gzip `data` into a new file `destination`.
    static func decompress(_ data: [UInt8], to destination: String) throws(CLIFailure) {
        guard FileManager.default.createFile(atPath: destination, contents: nil),
              let output = FileHandle(forWritingAtPath: destination) else { throw CLIFailure("cannot create \(destination)") }
        defer { try? output.close() }
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CLIFailure("zlib: inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        let rc = try pump(&stream, data, to: output) { inflate(&$0, Z_NO_FLUSH) }
        guard rc == Z_STREAM_END else { throw CLIFailure("\(destination): truncated or corrupt gzip data") }
    }

    /// Feeds `input` through `step` until it is consumed and the output buffer is not filled,
    /// writing what comes out; returns the last zlib code.
    @discardableResult
    private static func pump(_ stream: inout z_stream, _ input: [UInt8], to output: FileHandle,
                             _ step: (inout z_stream) -> Int32) throws(CLIFailure) -> Int32 {
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var rc: Int32 = Z_OK
        var failure: CLIFailure?
        input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = UInt32(inBuf.count)
            repeat {
                let produced = out.withUnsafeMutableBufferPointer { outBuf -> Int in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    rc = step(&stream)
                    return outBuf.count - Int(stream.avail_out)
                }
                guard rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR else {
                    failure = CLIFailure("zlib error \(rc)")
                    return
                }
                if produced > 0 { output.write(Data(out[..<produced])) }
                if rc == Z_STREAM_END || (stream.avail_in == 0 && produced < out.count) { return }
            } while true
        }
        if let failure { throw failure }
        return rc
    }
}
