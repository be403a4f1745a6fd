import CLinuxShims
import Glibc
import HTTPWire

/// Bytes owed to one client, in order: heads and small bodies copied into one reused staging
/// buffer (so a head and its body, or a batch of pipelined responses, leave in one sendmsg),
/// large in-memory bodies by reference, and file ranges sent with sendfile under TCP_CORK.
/// Everything is measured as offsets in the connection's output stream, which gives exact
/// per-exchange `bytesSent` even when the client leaves half-way.
struct OutboundQueue {
    enum WriteResult { case drained, wouldBlock, budgetExhausted, failed }

    private enum Segment {
        case staged(start: Int, end: Int)
        case memory([UInt8], sent: Int)
        case file(OpenFile, offset: Int64, end: Int64)
    }

    private struct Tracked {
        var summary: ExchangeSummary
        let bodyStart: Int64
        let bodyEnd: Int64
    }

    /// Bodies up to this size are copied next to their head; larger ones go by reference.
    static let copyLimit = 16 * 1024
    /// Above this many unsent bytes (or with a file pending) the connection stops taking requests.
    static let backlogLimit: Int64 = 256 * 1024
    /// Linux caps one sendfile at 0x7ffff000 bytes; bounded chunks also keep 64-bit offsets exact.
    static let sendfileChunk: Int64 = 0x7fff_f000
    /// Bytes one connection may send per loop turn before others get their go.
    static let turnBudget: Int64 = 4 << 20
    static let maxIovecs = 64

    private var staging: [UInt8] = []
    private var segments: [Segment] = []
    private var first = 0
    private var filesPending = 0
    private var tracked: [Tracked] = []
    private var trackedFirst = 0
    private var corked = false
    /// Stream offsets: everything enqueued so far, and everything the kernel accepted.
    private(set) var queued: Int64 = 0
    private(set) var written: Int64 = 0

    var isEmpty: Bool { first == segments.count }
    var isBacklogged: Bool { filesPending > 0 || queued - written > Self.backlogLimit }

    /// Serialises straight into the staging buffer (a head, or a 100 Continue line).
    mutating func appendStaged(_ build: (inout [UInt8]) -> Void) {
        resetIfEmpty()
        let start = staging.count
        build(&staging)
        addStaged(start, staging.count)
    }

    mutating func appendBody(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if bytes.count <= Self.copyLimit {
            appendStaged { $0.append(contentsOf: bytes) }
        } else {
            resetIfEmpty()
            segments.append(.memory(bytes, sent: 0))
            queued += Int64(bytes.count)
        }
    }

    mutating func appendFile(_ file: OpenFile, offset: Int64, length: Int64) {
        guard length > 0 else { return }
        resetIfEmpty()
        segments.append(.file(file, offset: offset, end: offset + length))
        filesPending += 1
        queued += length
    }

    /// The summary is reported once the stream reaches `bodyEnd` (or with partial bytes on abandon).
    mutating func track(_ summary: ExchangeSummary, bodyStart: Int64) {
        tracked.append(Tracked(summary: summary, bodyStart: bodyStart, bodyEnd: queued))
    }

    /// The next summary whose last byte the kernel has accepted.
    mutating func popFinished(nowNanos: Int64) -> ExchangeSummary? {
        guard trackedFirst < tracked.count, tracked[trackedFirst].bodyEnd <= written else {
            if trackedFirst == tracked.count && trackedFirst > 0 { tracked.removeAll(keepingCapacity: true); trackedFirst = 0 }
            return nil
        }
        var s = tracked[trackedFirst].summary
        s.bytesSent = tracked[trackedFirst].bodyEnd - tracked[trackedFirst].bodyStart
        s.endNanos = nowNanos
        trackedFirst += 1
        return s
    }

    /// Drops what was not sent; returns the unfinished summaries with the bytes that did go out.
    mutating func abandon(nowNanos: Int64) -> [ExchangeSummary] {
        let rest = tracked[trackedFirst...].map { t -> ExchangeSummary in
            var s = t.summary
            s.bytesSent = max(0, min(written - t.bodyStart, t.bodyEnd - t.bodyStart))
            s.endNanos = nowNanos
            return s
        }
        tracked = []
        trackedFirst = 0
        segments = []
        first = 0
        filesPending = 0
        staging = []
        return rest
    }

    /// Writes until drained, the socket is full, the turn budget is spent, or the peer is gone.
    mutating func write(to fd: Int32, iovecs: UnsafeMutablePointer<iovec>) -> WriteResult {
        if filesPending > 0 && !corked { setCork(fd, true) }
        var sentThisTurn: Int64 = 0
        while first < segments.count {
            let result: Int, requested: Int
            if case .file(let file, let offset, let end) = segments[first] {
                requested = Int(min(end - offset, Self.sendfileChunk))
                var off = off_t(offset)
                result = sendfile(fd, file.fd, &off, requested)
                if result == 0 { return .failed }  // the file shrank under us: Content-Length cannot be honoured
            } else {
                (result, requested) = gatherWrite(fd, iovecs)
            }
            if result < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed
            }
            advance(by: result)
            sentThisTurn += Int64(result)
            if result < requested { return .wouldBlock }  // socket buffer full: wait for EPOLLOUT
            if sentThisTurn >= Self.turnBudget && first < segments.count { return .budgetExhausted }
        }
        resetIfEmpty()
        if corked { setCork(fd, false) }
        return .drained
    }

    /// Once everything went out, the staging buffer and segment list start over (capacity kept).
    private mutating func resetIfEmpty() {
        guard isEmpty, first > 0 || !staging.isEmpty else { return }
        segments.removeAll(keepingCapacity: true)
        staging.removeAll(keepingCapacity: true)
        first = 0
    }

    private mutating func addStaged(_ start: Int, _ end: Int) {
        guard end > start else { return }
        queued += Int64(end - start)
        if first < segments.count, case .staged(let s, let e) = segments[segments.count - 1], e == start {
            segments[segments.count - 1] = .staged(start: s, end: end)
        } else {
            segments.append(.staged(start: start, end: end))
        }
    }

    /// One sendmsg over the leading in-memory segments: staged runs plus at most one referenced
    /// body (so only two buffers need pinning). MSG_NOSIGNAL: a vanished peer is an error, not a signal.
    private func gatherWrite(_ fd: Int32, _ iov: UnsafeMutablePointer<iovec>) -> (Int, Int) {
        var memory: [UInt8] = []
        var memoryIndex = -1
        var end = first
        while end < segments.count, end - first < Self.maxIovecs {
            if case .file = segments[end] { break }
            if case .memory(let bytes, _) = segments[end] {
                if memoryIndex >= 0 { break }
                memory = bytes
                memoryIndex = end
            }
            end += 1
        }
        return staging.withUnsafeBytes { sb in
            memory.withUnsafeBytes { mb in
                var total = 0
                for i in first..<end {
                    switch segments[i] {
                    case .staged(let s, let e):
                        iov[i - first] = iovec(iov_base: UnsafeMutableRawPointer(mutating: sb.baseAddress! + s), iov_len: e - s)
                        total += e - s
                    case .memory(_, let sent):
                        iov[i - first] = iovec(iov_base: UnsafeMutableRawPointer(mutating: mb.baseAddress! + sent), iov_len: mb.count - sent)
                        total += mb.count - sent
                    case .file:
                        break
                    }
                }
                var msg = msghdr()
                msg.msg_iov = iov
                msg.msg_iovlen = end - first
                return (sendmsg(fd, &msg, Int32(MSG_NOSIGNAL)), total)
            }
        }
    }

    private mutating func advance(by count: Int) {
        written += Int64(count)
        var left = Int64(count)
        while left > 0, first < segments.count {
            switch segments[first] {
            case .staged(let s, let e):
                if Int64(e - s) > left { segments[first] = .staged(start: s + Int(left), end: e); return }
                left -= Int64(e - s)
            case .memory(let bytes, let sent):
                if Int64(bytes.count - sent) > left { segments[first] = .memory(bytes, sent: sent + Int(left)); return }
                left -= Int64(bytes.count - sent)
            case .file(let file, let offset, let end):
                if end - offset > left { segments[first] = .file(file, offset: offset + left, end: end); return }
                left -= end - offset
                filesPending -= 1
            }
            segments[first] = .staged(start: 0, end: 0)  // release the bytes or the file now
            first += 1
        }
    }

    private mutating func setCork(_ fd: Int32, _ on: Bool) {
        var v: Int32 = on ? 1 : 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &v, socklen_t(MemoryLayout<Int32>.size))
        corked = on
    }
}
