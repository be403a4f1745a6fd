// gzip over the system zlib: compression for pre-serialised answers, and inflation that stops
// at a caller's limit so a small bomb cannot make us allocate or burn CPU beyond that limit.
import CZlib

public enum GzipError: Error, Sendable, Hashable {
    /// The inflated data would exceed the caller's limit.
    case tooLarge
    /// Not gzip/zlib data, corrupt, or truncated.
    case invalid
}

public enum Gzip {
    /// gzip wrapper, best compression: paid once per catalog change, saved on every response.
    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { deflateEnd(stream); stream.deallocate() }
        // Fails only on out-of-memory or a zlib ABI mismatch, neither of which a caller can handle.
        let rc = deflateInit2_(stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "deflateInit2 failed: \(rc)")

        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
        bytes.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            var remaining = input.count
            var written = 0
            while true {
                let feed = min(remaining, Int(UInt32.max))
                stream.pointee.avail_in = UInt32(feed)
                remaining -= feed
                if written == output.count { output.append(contentsOf: repeatElement(0, count: 64 * 1024)) }
                let (rc, produced) = output.withUnsafeMutableBufferPointer { out in
                    let room = min(out.count - written, Int(UInt32.max))
                    stream.pointee.next_out = out.baseAddress! + written
                    stream.pointee.avail_out = UInt32(room)
                    let rc = deflate(stream, remaining == 0 ? Z_FINISH : Z_NO_FLUSH)
                    return (rc, room - Int(stream.pointee.avail_out))
                }
                written += produced
                remaining += Int(stream.pointee.avail_in)   // what deflate left unread
                if rc == Z_STREAM_END { break }
                precondition(rc == Z_OK || rc == Z_BUF_ERROR, "deflate failed: \(rc)")
            }
            output.removeSubrange(written...)
        }
        return output
    }

    /// Inflates gzip (or zlib) data whole. Stops as soon as the output would pass `limit` bytes.
    public static func inflate(_ input: some Collection<UInt8>, limit: Int) throws(GzipError) -> [UInt8] {
        var inflater = GzipInflater(limit: limit)
        func feed(_ buffer: UnsafeBufferPointer<UInt8>) -> GzipError? {
            do { try inflater.append(UnsafeRawBufferPointer(buffer)) } catch { return error }
            return nil
        }
        let failure = input.withContiguousStorageIfAvailable(feed) ?? Array(input).withUnsafeBufferPointer(feed)
        if let failure { throw failure }
        return try inflater.finish()
    }
}

/// Incremental inflation for bodies that arrive in pieces. Accepts gzip or zlib wrappers
/// (auto-detected) and concatenated gzip members (RFC 1952 §2.2).
public struct GzipInflater: ~Copyable {
    public let limit: Int
    /// Everything inflated so far (never more than `limit` bytes).
    public private(set) var output: [UInt8] = []
    // Heap-allocated: zlib keeps a back-pointer to the stream and rejects one that moved.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutablePointer<UInt8>
    private static let scratchSize = 64 * 1024
    private var memberEnded = false
    private var failure: GzipError?

    public init(limit: Int) {
        precondition(limit >= 0, "negative inflate limit")
        self.limit = limit
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: Self.scratchSize)
        // Fails only on out-of-memory or a zlib ABI mismatch, neither of which a caller can handle.
        let rc = inflateInit2_(stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(rc == Z_OK, "inflateInit2 failed: \(rc)")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates one more piece. After an error every later call fails the same way.
    public mutating func append(_ chunk: UnsafeRawBufferPointer) throws(GzipError) {
        if let failure { throw failure }
        var rest = chunk[...]
        while !rest.isEmpty {
            let piece = rest.prefix(Int(UInt32.max))
            rest = rest.dropFirst(piece.count)
            do throws(GzipError) { try inflate(UnsafeRawBufferPointer(rebasing: piece)) } catch {
                failure = error
                throw error
            }
        }
    }

    /// The inflated bytes, provided the data ended exactly at the end of a member.
    public func finish() throws(GzipError) -> [UInt8] {
        if let failure { throw failure }
        guard memberEnded else { throw .invalid }
        return output
    }

    private mutating func inflate(_ piece: UnsafeRawBufferPointer) throws(GzipError) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: piece.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(piece.count)
        defer { stream.pointee.next_in = nil }   // the caller's buffer dies after this call
        while true {
            if memberEnded {
                guard stream.pointee.avail_in > 0 else { return }
                inflateReset(stream)
                memberEnded = false
            }
            // Never ask for more than one byte past the limit: that byte is the proof of overflow.
            let room = min(Self.scratchSize, limit + 1 - output.count)
            stream.pointee.next_out = scratch
            stream.pointee.avail_out = UInt32(room)
            let rc = CZlib.inflate(stream, Z_NO_FLUSH)
            let produced = room - Int(stream.pointee.avail_out)
            // Checked before appending: the proof byte must not grow the array past the limit
            // (appending it doubled an 8 MiB buffer to 16 MiB for every gzip bomb).
            if output.count + produced > limit {
                output.append(contentsOf: UnsafeBufferPointer(start: scratch, count: limit - output.count))
                throw .tooLarge
            }
            output.append(contentsOf: UnsafeBufferPointer(start: scratch, count: produced))
            switch rc {
            case Z_STREAM_END: memberEnded = true
            case Z_OK where stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0: return
            case Z_OK: continue
            case Z_BUF_ERROR: return   // no progress possible until more input arrives
            default: throw .invalid
            }
        }
    }
}
