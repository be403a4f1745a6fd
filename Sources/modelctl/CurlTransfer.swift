import CCurl

/// One request's callback state. libcurl's C callbacks cannot capture, so each recovers this
/// object from its userdata pointer (passed unretained: the transfer outlives `perform`).
final class CurlTransfer {
    let easy: CurlEasy
    private(set) var responseBody: [UInt8] = []
    private let responseLimit: Int
    private(set) var responseOverflowed = false
    private let upload: (any UploadSource)?
    private(set) var uploadError: CLIFailure?
    private let progress: ProgressBar?

    init(responseLimit: Int, upload: (any UploadSource)?, progress: ProgressBar?) throws(CLIFailure) {
        easy = try CurlEasy()
        self.responseLimit = responseLimit
        self.upload = upload
        self.progress = progress
    }

    func perform() -> CURLcode {
        let context = Unmanaged.passUnretained(self).toOpaque()
        easy.set(CURLOPT_WRITEDATA, pointer: context)
        easy.check(modeld_curl_setopt_write_fn(easy.handle) { data, size, count, userdata in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
        }, CURLOPT_WRITEFUNCTION)
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
        if progress != nil {
            easy.set(CURLOPT_XFERINFODATA, pointer: context)
            easy.check(modeld_curl_setopt_xferinfo_fn(easy.handle) { userdata, _, _, _, uploaded in
                Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().progress?.update(sent: Int64(uploaded))
                return 0
            }, CURLOPT_XFERINFOFUNCTION)
            easy.set(CURLOPT_NOPROGRESS, 0)
        }
        let code = easy.perform()
        progress?.finish()
        return code
    }

    /// Collects the response body in memory up to the limit; returning short aborts the transfer.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard responseBody.count + bytes.count <= responseLimit else { responseOverflowed = true; return 0 }
        responseBody.append(contentsOf: bytes)
        return bytes.count
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
