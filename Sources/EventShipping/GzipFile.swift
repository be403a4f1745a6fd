import CZlib
import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// Streaming gzip between files and memory for `events ship` / `export --from`: a 64 MiB
/// segment passes through 1 MiB buffers instead of being held whole, compressed or not.
enum GzipFile {
    /// Compresses the first `length` bytes of `source` into a new file `destination` and
    /// returns the size of what it wrote.
    static func compress(_ source: String, length: Int, to destination: String) throws(ShipFailure) -> Int64 {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ShipFailure("cannot open \(source): \(String(cString: strerror(errno)))") }
        // Closing a file only read from cannot lose data.
        defer { close(input) }
        var stream = z_stream()
        // Level 6: zlib's default trade-off; segments compress ~10x either way.
        guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw ShipFailure("zlib: deflateInit failed") }
        defer { deflateEnd(&stream) }
        return try writing(destination) { (output) throws(ShipFailure) in
            var remaining = length
            var written: Int64 = 0
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            repeat {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, min(remaining, $0.count)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ShipFailure("reading \(source): \(String(cString: strerror(errno)))")
                }
                let chunk = Array(buffer[..<n])
                remaining -= chunk.count
                if chunk.isEmpty && remaining > 0 { throw ShipFailure("\(source) shrank while it was read") }
                let finish = remaining == 0
                written += try pump(&stream, chunk, to: output, destination) { deflate(&$0, finish ? Z_FINISH : Z_NO_FLUSH) }.written
                if finish { return written }
            } while true
        }
    }

    /// Inflates gzip `data` into a new file `destination`, stopping as soon as the output would
    /// pass `limit` bytes (as the event path's inflation does): a bomb costs at most `limit`
    /// bytes of disk and the CPU to produce them, and its partial output is removed.
    static func decompress(_ data: [UInt8], to destination: String, limit: Int) throws(ShipFailure) {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ShipFailure("zlib: inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        let rc: Int32
        do {
            rc = try writing(destination) { (output) throws(ShipFailure) in
                try pump(&stream, data, to: output, destination, limit: Int64(limit)) { inflate(&$0, Z_NO_FLUSH) }.rc
            }
        } catch {
            unlink(destination)
            throw error
        }
        guard rc == Z_STREAM_END else { throw ShipFailure("\(destination): truncated or corrupt gzip data") }
    }

    /// Creates (or truncates) `path`, runs `body` with its descriptor, and closes it, reporting
    /// a failed close (a lost write).
    private static func writing<T>(_ path: String, _ body: (Int32) throws(ShipFailure) -> T) throws(ShipFailure) -> T {
        let output: Int32
        do throws(IOFailure) { output = try DurableFile.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC) } catch {
            throw ShipFailure("cannot create \(path): \(error)")
        }
        let result: T
        do { result = try body(output) } catch {
            // Already failing: that error is the one to report.
            close(output)
            throw error
        }
        guard close(output) == 0 else { throw ShipFailure("writing \(path): \(String(cString: strerror(errno)))") }
        return result
    }

    /// Feeds `input` through `step` until it is consumed and the output buffer is not filled,
    /// writing what comes out, never more than `limit` bytes; returns the last zlib code and
    /// the bytes written.
    private static func pump(_ stream: inout z_stream, _ input: [UInt8], to output: Int32, _ path: String,
                             limit: Int64 = .max, _ step: (inout z_stream) -> Int32) throws(ShipFailure) -> (rc: Int32, written: Int64) {
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var rc: Int32 = Z_OK
        var written: Int64 = 0
        var failure: ShipFailure?
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
                    failure = ShipFailure("zlib error \(rc)")
                    return
                }
                guard Int64(produced) <= limit - written else {
                    failure = ShipFailure("\(path): inflates past \(limit) bytes, more than any segment holds; not read")
                    return
                }
                if produced > 0 {
                    do throws(IOFailure) { try DurableFile.writeAll(output, Array(out[..<produced]), path: path) } catch {
                        failure = ShipFailure("writing \(path): \(error)")
                        return
                    }
                    written += Int64(produced)
                }
                if rc == Z_STREAM_END || (stream.avail_in == 0 && produced < out.count) { return }
            } while true
        }
        if let failure { throw failure }
        return (rc, written)
    }
}
