import CCurl

/// One request's callback state. libcurl's C callbacks cannot capture, so each recovers this
/// object from its userdata pointer (passed unretained: the transfer outlives `perform`).
public final class CurlTransfer {
    public let easy: CurlEasy
    public private(set) var responseBody: [UInt8] = []
    /// The final response's header fields, names lowercased, in arrival order (only when asked for).
    public private(set) var responseHeaders: [(name: String, value: String)] = []
    private let responseLimit: Int
    public private(set) var responseOverflowed = false
    private let upload: (any CurlUploadSource)?
    public private(set) var uploadError: (any Error)?
    private let progress: (any CurlProgressObserver)?
    private let collectsHeaders: Bool
    /// Where the body goes instead of `responseBody` (streamed, not collected).
    private let sink: (any CurlResponseSink)?
    private var headDelivered = false
    public private(set) var sinkError: (any Error)?
    private let cancellation: CurlCancellation?

    /// - Parameter easy: a handle to reuse (its open connections with it), reset by the caller;
    ///   nil = a new one.
    public init(responseLimit: Int, upload: (any CurlUploadSource)?, progress: (any CurlProgressObserver)?,
                collectsHeaders: Bool = false, sink: (any CurlResponseSink)? = nil,
                cancellation: CurlCancellation? = nil, easy: CurlEasy? = nil) throws(CurlSetupError) {
        if let easy { self.easy = easy } else { self.easy = try CurlEasy() }
        self.responseLimit = responseLimit
        self.upload = upload
        self.progress = progress
        self.collectsHeaders = collectsHeaders || sink != nil
        self.sink = sink
        self.cancellation = cancellation
    }

    public func perform() -> CURLcode {
        let context = Unmanaged.passUnretained(self).toOpaque()
        easy.set(CURLOPT_WRITEDATA, pointer: context)
        easy.check(modeld_curl_setopt_write_fn(easy.handle) { data, size, count, userdata in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
        }, CURLOPT_WRITEFUNCTION)
        if collectsHeaders {
            easy.set(CURLOPT_HEADERDATA, pointer: context)
            easy.check(modeld_curl_setopt_header_fn(easy.handle) { data, size, count, userdata in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }, CURLOPT_HEADERFUNCTION)
        }
        if upload != nil {
            easy.set(CURLOPT_READDATA, pointer: context)
            easy.check(modeld_curl_setopt_read_fn(easy.handle) { buffer, size, count, userdata in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                return transfer.send(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
            }, CURLOPT_READFUNCTION)
            easy.set(CURLOPT_TRAILERDATA, pointer: context)
            easy.check(modeld_curl_setopt_trailer_fn(easy.handle) { list, userdata in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                // libcurl frees this list after sending it.
                for field in transfer.upload?.trailerFields() ?? [] { list!.pointee = curl_slist_append(list!.pointee, field) }
                return Int32(CURL_TRAILERFUNC_OK)
            }, CURLOPT_TRAILERFUNCTION)
        }
        if progress != nil || cancellation != nil || sink != nil {
            easy.set(CURLOPT_XFERINFODATA, pointer: context)
            easy.check(modeld_curl_setopt_xferinfo_fn(easy.handle) { userdata, _, _, _, uploaded in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
                if transfer.cancellation?.isCancelled == true { return 1 }
                transfer.progress?.update(sent: Int64(uploaded))
                return transfer.tickSink() ? 0 : 1
            }, CURLOPT_XFERINFOFUNCTION)
            easy.set(CURLOPT_NOPROGRESS, 0)
        }
        let code = easy.perform()
        progress?.finish()
        if code == CURLE_OK, sinkError == nil { deliverHead() }  // a response without a body
        return code
    }

    /// Streams the body into the sink, or collects it in memory up to the limit; returning
    /// short aborts the transfer.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let sink {
            deliverHead()
            guard sinkError == nil else { return 0 }
            do { try sink.receive(bytes) } catch {
                sinkError = error
                return 0
            }
            return bytes.count
        }
        guard responseBody.count + bytes.count <= responseLimit else { responseOverflowed = true; return 0 }
        responseBody.append(contentsOf: bytes)
        return bytes.count
    }

    /// Lets the sink act on time passing (false aborts the transfer with the sink's error).
    private func tickSink() -> Bool {
        guard let sink, headDelivered, sinkError == nil else { return sinkError == nil }
        do { try sink.tick() } catch {
            sinkError = error
            return false
        }
        return true
    }

    /// Hands the sink the final response's head, once. Bodies of followed redirects never reach
    /// the write callback, so the first body byte belongs to the final response.
    private func deliverHead() {
        guard let sink, !headDelivered else { return }
        headDelivered = true
        do { try sink.receive(status: easy.responseCode, headers: responseHeaders) } catch { sinkError = error }
    }

    /// One header line; a status line starts a new response (after 100 Continue or a redirect).
    private func receiveHeader(_ bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: "HTTP/".utf8) { responseHeaders.removeAll(); return }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var start = colon + 1, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self).lowercased()
        responseHeaders.append((name, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
    }

    /// Fills libcurl's upload buffer; a source failure is kept and the transfer aborted.
    private func send(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let upload else { return 0 }
        do { return try upload.read(into: buffer) } catch {
            uploadError = error
            return Int(CURL_READFUNC_ABORT)
        }
    }
}
