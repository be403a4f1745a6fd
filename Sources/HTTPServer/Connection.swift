import CLinuxShims
import Glibc
import HTTPWire

/// One client socket and its HTTP/1.1 state machine. Loop-confined: created, driven and closed
/// on its loop's thread. Requests are handled one at a time, so responses leave strictly in
/// request order even when later requests are already buffered (pipelining).
final class Connection {
    enum Phase { case head, body, awaitingResponse, lingering, closed }

    static let initialBuffer = 4096
    static let bodyBuffer = 64 * 1024
    /// Lingering close after an early final response: how long and how much we keep discarding.
    static let lingerNanos: Int64 = 2_000_000_000
    static let lingerBytes = 1 << 20
    /// Reads one connection may do per loop turn before the others get their go.
    static let readsPerTurn = 16

    let fd: Int32
    let peer: String
    unowned let loop: EventLoop
    private(set) var phase = Phase.head
    private var out = OutboundQueue()

    private var input: [UInt8]
    private var inStart = 0, inEnd = 0
    private var parser: RequestParser
    private var readable = false
    private var peerHungUp = false         // EPOLLRDHUP seen: read until EOF, not just until a short read
    private var headStarted = false        // a partial head is buffered: the header deadline runs
    private var heldBack = false           // stopped taking requests because output was backlogged
    private var closeWhenFlushed = false
    private var lingerWhenFlushed = false
    private var lingerLeft = 0

    private var current: Exchange?
    private var bodyUnread = false
    private var bodyRemaining: Int64 = 0
    private var chunked: ChunkedDecoder?
    private var collected: [UInt8]?
    private var collectLimit = 0
    private var sink: (any BodySink)?
    private var paused = false

    /// Monotonic deadlines checked by the loop's once-a-second sweep.
    private(set) var readDeadline: Int64
    private(set) var writeDeadline: Int64 = .max
    var isQueuedForTurn = false

    init(fd: Int32, peer: String, loop: EventLoop) {
        self.fd = fd
        self.peer = peer
        self.loop = loop
        input = [UInt8](repeating: 0, count: Self.initialBuffer)
        parser = RequestParser(maxHeaderBytes: loop.config.maxHeaderBytes)
        readDeadline = loop.now + loop.headerTimeout
        openedAt = loop.now
    }

    /// Nothing owed and nothing half-received: safe to close during drain. A fresh connection
    /// gets a second to send its first request (it may be a health check that should see the 503).
    func isIdle(now: Int64) -> Bool {
        phase == .head && current == nil && inStart == inEnd && out.isEmpty
            && (hasServed || now - openedAt >= Self.drainGraceNanos)
    }
    static let drainGraceNanos: Int64 = 1_000_000_000
    private var hasServed = false
    private let openedAt: Int64

    // MARK: events

    func onEvent(readable r: Bool, hangUp: Bool) {
        if r { readable = true }
        if hangUp { peerHungUp = true; readable = true }
        drive()
    }

    /// Does everything possible now: consume buffered input, read more while wanted, flush.
    func drive() {
        var reads = 0
        while phase != .closed {
            consumeInput()
            if phase == .closed { return }
            if wantsInput && readable && reads < Self.readsPerTurn {
                reads += 1
                if readMore() { continue }
                if phase == .closed { return }
            }
            flush()
            if phase == .closed || !out.isEmpty { return }
            if reads == Self.readsPerTurn && wantsInput && readable {
                loop.scheduleTurn(self)  // a fast sender must not starve the loop's other connections
                return
            }
            guard heldBack || (wantsInput && readable) else { return }
            heldBack = false
        }
    }

    func timeOut() {
        close()
    }

    // MARK: input

    private var wantsInput: Bool {
        switch phase {
        case .head: !closeWhenFlushed && !out.isBacklogged
        case .body: !paused
        case .lingering: true
        case .awaitingResponse, .closed: false
        }
    }

    /// Runs phase after phase over the buffer: a head can be followed by its body in one read.
    private func consumeInput() {
        var before: Phase
        repeat {
            before = phase
            switch phase {
            case .head: consumeHeads()
            case .body: consumeBody()
            case .lingering:
                lingerLeft -= inEnd - inStart
                inStart = 0; inEnd = 0
                if lingerLeft <= 0 { close() }
            case .awaitingResponse, .closed: break
            }
        } while phase != before
    }

    /// Reads once into the free tail of the buffer. False when nothing was read.
    private func readMore() -> Bool {
        if inStart == inEnd { inStart = 0; inEnd = 0 }
        if inEnd == input.count {
            if inStart > 0 {
                input.withUnsafeMutableBytes { b in _ = memmove(b.baseAddress!, b.baseAddress! + inStart, inEnd - inStart) }
                inEnd -= inStart
                inStart = 0
                parser.reset()
            } else {
                input.append(contentsOf: repeatElement(0, count: input.count))
            }
        }
        let space = input.count - inEnd
        let n = input.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + inEnd, space) }
        if n > 0 {
            inEnd += n
            // A short read emptied the socket; edge-triggered epoll reports the next arrival.
            if n < space && !peerHungUp { readable = false }
            return true
        }
        if n < 0 && errno == EINTR { return true }
        readable = false
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
        peerClosed()
        return false
    }

    /// EOF or a read error: finish what is owed if we can, else close.
    private func peerClosed() {
        switch phase {
        case .head where inStart == inEnd && !out.isEmpty, .awaitingResponse:
            closeWhenFlushed = true
            lingerWhenFlushed = false
        default:
            close()
        }
    }

    private func consumeHeads() {
        while phase == .head && !closeWhenFlushed && inStart < inEnd {
            if out.isBacklogged { heldBack = true; return }
            let outcome = input.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[inStart..<inEnd])) }
            switch outcome {
            case .needMore:
                if !headStarted {
                    headStarted = true
                    readDeadline = loop.now + loop.headerTimeout
                }
                return
            case .error(let e):
                bodyUnread = true  // the framing is unknown: never read on
                send(.error(e), for: nil)
            case .head(let head, let consumed):
                inStart += consumed
                parser.reset()
                headStarted = false
                begin(head)
            }
        }
        if inStart == inEnd { inStart = 0; inEnd = 0; parser.reset() }
    }

    private func begin(_ head: RequestHead) {
        let exchange = Exchange(loop: loop, connection: self, head: head, startNanos: loop.now)
        current = exchange
        bodyUnread = head.body != .none
        readDeadline = .max
        switch loop.handler.handle(head, exchange) {
        case .respond(let response):
            send(response, for: exchange)
        case .deferred:
            phase = .awaitingResponse
        case .collectBody(let limit):
            if case .length(let n) = head.body, n > Int64(limit) {
                send(.error(.bodyTooLarge("request body larger than \(limit) bytes")), for: exchange)
                return
            }
            collected = []
            if case .length(let n) = head.body { collected!.reserveCapacity(Int(n)) }
            collectLimit = limit
            startBody(head)
        case .streamBody(let s):
            sink = s
            startBody(head)
        }
    }

    private func startBody(_ head: RequestHead) {
        phase = .body
        bodyUnread = false
        switch head.body {
        case .none:
            finishBody(trailers: HTTPFields())
            return
        case .length(let n):
            bodyRemaining = n
            chunked = nil
        case .chunked:
            chunked = ChunkedDecoder(maxTrailerBytes: loop.config.maxHeaderBytes)
        }
        if head.expectsContinue { out.appendStaged { $0.append(contentsOf: ResponseHeadWriter.continueLine) } }
        if input.count < Self.bodyBuffer { input.append(contentsOf: repeatElement(0, count: Self.bodyBuffer - input.count)) }
        readDeadline = loop.now + loop.bodyTimeout
    }

    private func consumeBody() {
        if inStart < inEnd { readDeadline = loop.now + loop.bodyTimeout }
        while phase == .body && !paused && inStart < inEnd {
            if chunked != nil {
                let base = inStart
                let (consumed, event) = input.withUnsafeBytes { chunked!.decode(UnsafeRawBufferPointer(rebasing: $0[inStart..<inEnd])) }
                inStart += consumed
                switch event {
                case .needMore: return
                case .data(let r): deliver(base + r.lowerBound..<base + r.upperBound)
                case .end(let trailers): finishBody(trailers: trailers)
                case .error(let e): bodyFailed(e)
                }
            } else {
                let n = Int(min(bodyRemaining, Int64(inEnd - inStart)))
                let range = inStart..<inStart + n
                inStart += n
                bodyRemaining -= Int64(n)
                deliver(range)
                if bodyRemaining == 0 && phase == .body { finishBody(trailers: HTTPFields()) }
            }
        }
    }

    private func deliver(_ range: Range<Int>) {
        if collected != nil {
            guard collected!.count + range.count <= collectLimit else {
                bodyFailed(.bodyTooLarge("request body larger than \(collectLimit) bytes"))
                return
            }
            input.withUnsafeBytes { collected!.append(contentsOf: $0[range]) }
        } else if let sink {
            let flow = input.withUnsafeBytes { sink.bodyBytes(UnsafeRawBufferPointer(rebasing: $0[range])) }
            if case .pause = flow {
                paused = true
                readDeadline = .max
            }
        }
    }

    private func finishBody(trailers: HTTPFields) {
        phase = .awaitingResponse
        readDeadline = .max
        chunked = nil
        if let body = collected {
            collected = nil
            if let handler = current?.bodyHandler {
                current?.bodyHandler = nil
                handler(body, trailers)
            }
        } else if let s = sink {
            sink = nil
            s.bodyEnd(trailers: trailers)
        }
    }

    /// A malformed or oversized body: tell the route, answer, and close.
    private func bodyFailed(_ e: HTTPError) {
        if let s = sink { sink = nil; s.bodyAborted() }
        collected = nil
        chunked = nil
        bodyUnread = true
        phase = .awaitingResponse
        send(.error(e), for: current)
    }

    func resume(_ exchange: Exchange) {
        guard exchange === current, phase == .body, paused else { return }
        paused = false
        readDeadline = loop.now + loop.bodyTimeout
        drive()
    }

    // MARK: output

    /// The route's response, delivered on the loop thread; late or repeated ones are dropped.
    func complete(_ response: Response, for exchange: Exchange) {
        guard exchange === current, !exchange.responded else { return }
        send(response, for: exchange)
        drive()
    }

    /// Queues the response for `exchange` (nil: a protocol error before any exchange existed)
    /// and decides whether the connection survives it.
    private func send(_ response: Response, for exchange: Exchange?) {
        guard phase != .closed else { return }
        var response = response
        if response.file == nil && response.parts.contains(where: { if case .file = $0 { true } else { false } }) {
            response = .error(500, "internal_error", "response refers to a file it does not carry")
        }
        exchange?.responded = true
        current = nil
        if phase == .body {  // answered before the body ended: the rest stays unread
            bodyUnread = true
            chunked = nil
            collected = nil
        }
        if bodyUnread, let s = sink { sink = nil; s.bodyAborted() }
        let closing = exchange.map { !$0.keepAlive } ?? true || bodyUnread || closeWhenFlushed || loop.isDraining
        let noBody = ResponseHeadWriter.hasNoBody(status: response.status)
        let sendsBody = !noBody && !(exchange?.isHEAD ?? false)
        let length = response.contentLength
        let token: ResponseHeadWriter.ConnectionToken = closing ? .close : (exchange?.versionMinor == 0 ? .keepAlive : .none)
        let date = loop.date.line
        out.appendStaged {
            ResponseHeadWriter.write(status: response.status, headers: response.headers, contentLength: noBody ? nil : length,
                                     connection: token, date: date, into: &$0)
        }
        let bodyStart = out.queued
        if sendsBody {
            for part in response.parts {
                switch part {
                case .bytes(let b): out.appendBody(b)
                case .file(let offset, let n): out.appendFile(response.file!, offset: offset, length: n)
                }
            }
        }
        if loop.observer != nil {
            out.track(ExchangeSummary(method: exchange?.method ?? "", path: exchange?.path ?? "", peer: peer,
                                      status: response.status, bytesSent: 0, contentLength: sendsBody ? length : 0,
                                      rangeRequested: exchange?.rangeRequested ?? false,
                                      startNanos: exchange?.startNanos ?? loop.now, endNanos: 0, label: response.label ?? exchange?.label),
                      bodyStart: bodyStart)
        }
        if closing {
            closeWhenFlushed = true
            lingerWhenFlushed = bodyUnread && !peerHungUp
        }
        bodyUnread = false
        hasServed = true
        phase = .head
        // Idle from when the response is out (`flush`), not while it is sent: a client reading a
        // download longer than the idle timeout is not idle (the send timeout watches its progress).
        readDeadline = .max
    }

    private func flush() {
        if !out.isEmpty {
            let before = out.written
            let result = out.write(to: fd, iovecs: loop.iovecs)
            // The send timeout measures the client's progress, not how often we try.
            if out.written > before || writeDeadline == .max { writeDeadline = loop.now + loop.bodyTimeout }
            reportFinished()
            switch result {
            case .drained:
                writeDeadline = .max
                if phase == .head, !headStarted, readDeadline == .max { readDeadline = loop.now + loop.idleTimeout }
            case .wouldBlock:
                return
            case .budgetExhausted:
                loop.scheduleTurn(self)
                return
            case .failed:
                close()
                return
            }
        }
        if closeWhenFlushed && current == nil {  // an exchange still owed its response keeps the socket
            closeWhenFlushed = false
            if lingerWhenFlushed { startLingering() } else { close() }
        }
    }

    private func reportFinished() {
        guard let observer = loop.observer else { return }
        while let s = out.popFinished(nowNanos: Clock.monotonicNanos()) { observer.exchangeFinished(s) }
    }

    /// The response is out; keep reading (and discarding) a little so the client's unsent body
    /// does not make our close a reset that destroys the response before it is read.
    private func startLingering() {
        shutdown(fd, Int32(SHUT_WR))
        phase = .lingering
        lingerLeft = Self.lingerBytes
        readDeadline = loop.now + Self.lingerNanos
        inStart = 0; inEnd = 0
    }

    /// Releases everything at once; safe to call in any phase, more than once.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        if let s = sink { sink = nil; s.bodyAborted() }
        collected = nil
        if let ex = current {
            current = nil
            ex.responded = true
            ex.bodyHandler = nil
            loop.observer?.exchangeFinished(ExchangeSummary(
                method: ex.method, path: ex.path, peer: peer, status: 0, bytesSent: 0, contentLength: 0,
                rangeRequested: ex.rangeRequested, startNanos: ex.startNanos, endNanos: loop.now, label: ex.label))
        }
        let unfinished = out.abandon(nowNanos: loop.now)
        if let observer = loop.observer { unfinished.forEach(observer.exchangeFinished) }
        loop.remove(self)
        Glibc.close(fd)
    }
}
