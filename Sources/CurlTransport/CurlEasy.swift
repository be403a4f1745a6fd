import CCurl

/// libcurl could not be set up (global init or a new easy handle failed).
public struct CurlSetupError: Error, CustomStringConvertible {
    public let description = "cannot initialise libcurl"
}

/// One libcurl easy handle plus the memory libcurl keeps pointers into (header list, error
/// buffer). Confined to the thread that performs it, like the handle itself.
public final class CurlEasy {
    public let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    /// libcurl's process-wide set-up, run once before the first handle exists.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init() throws(CurlSetupError) {
        guard CurlEasy.globalInit, let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw CurlSetupError()
        }
        self.handle = handle
        errorBuffer.initialize(to: 0)
        setDefaults()
    }

    /// Back to a fresh handle's options for the next request, keeping its open connections,
    /// DNS and TLS session caches (curl_easy_reset).
    public func reset() {
        curl_easy_reset(handle)
        curl_slist_free_all(headerList)
        headerList = nil
        setDefaults()
    }

    private func setDefaults() {
        set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        // No SIGALRM-based DNS timeouts; callers ignore SIGPIPE in the process instead.
        set(CURLOPT_NOSIGNAL, 1)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    public func set(_ option: CURLoption, _ value: Int) {
        check(modeld_curl_setopt_long(handle, option, value), option)
    }

    /// libcurl copies string options (since 7.17), so a temporary C string is enough.
    public func set(_ option: CURLoption, _ value: String) {
        check(value.withCString { modeld_curl_setopt_ptr(handle, option, $0) }, option)
    }

    public func set(_ option: CURLoption, pointer: UnsafeRawPointer?) {
        check(modeld_curl_setopt_ptr(handle, option, pointer), option)
    }

    public func set(_ option: CURLoption, offset: Int64) {
        check(modeld_curl_setopt_off(handle, option, curl_off_t(offset)), option)
    }

    /// Replaces the request header lines ("Name: value"); the list lives as long as the handle.
    public func setHeaders(_ lines: [String]) {
        curl_slist_free_all(headerList)
        headerList = nil
        for line in lines { headerList = curl_slist_append(headerList, line) }
        set(CURLOPT_HTTPHEADER, pointer: headerList)
    }

    public func perform() -> CURLcode {
        errorBuffer[0] = 0
        return curl_easy_perform(handle)
    }

    /// The last response's status code, 0 when none arrived.
    public var responseCode: Int {
        var code = 0
        _ = modeld_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The value of response header `name` of the last response (curl_easy_header, libcurl ≥ 7.84).
    public func responseHeader(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let value = header?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// libcurl's detailed message for a failed perform, else its generic one for `code`.
    public func errorMessage(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// A rejected option is a programming error (wrong type or a libcurl too old), not a runtime one.
    public func check(_ code: CURLcode, _ option: CURLoption) {
        precondition(code == CURLE_OK, "curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
    }
}
