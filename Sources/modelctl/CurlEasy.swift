import CCurl

/// One libcurl easy handle plus the memory libcurl keeps pointers into (header list, error
/// buffer). Confined to the thread that performs it, like the handle itself.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    /// libcurl's process-wide set-up, run once before the first handle exists.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init() throws(CLIFailure) {
        guard CurlEasy.globalInit, let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw CLIFailure("cannot initialise libcurl")
        }
        self.handle = handle
        errorBuffer.initialize(to: 0)
        set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        // No SIGALRM-based DNS timeouts; SIGPIPE is ignored by the process instead (HTTPClient).
        set(CURLOPT_NOSIGNAL, 1)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) {
        check(modeld_curl_setopt_long(handle, option, value), option)
    }

    /// libcurl copies string options (since 7.17), so a temporary C string is enough.
    func set(_ option: CURLoption, _ value: String) {
        check(value.withCString { modeld_curl_setopt_ptr(handle, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) {
        check(modeld_curl_setopt_ptr(handle, option, pointer), option)
    }

    func set(_ option: CURLoption, offset: Int64) {
        check(modeld_curl_setopt_off(handle, option, curl_off_t(offset)), option)
    }

    /// Replaces the request header lines ("Name: value"); the list lives as long as the handle.
    func setHeaders(_ lines: [String]) {
        curl_slist_free_all(headerList)
        headerList = nil
        for line in lines { headerList = curl_slist_append(headerList, line) }
        set(CURLOPT_HTTPHEADER, pointer: headerList)
    }

    func perform() -> CURLcode {
        errorBuffer[0] = 0
        return curl_easy_perform(handle)
    }

    /// The last response's status code, 0 when none arrived.
    var responseCode: Int {
        var code = 0
        _ = modeld_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The value of response header `name` of the last response (curl_easy_header, libcurl ≥ 7.84).
    func responseHeader(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let value = header?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// libcurl's detailed message for a failed perform, else its generic one for `code`.
    func errorMessage(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// A rejected option is a programming error (wrong type or a libcurl too old), not a runtime one.
    func check(_ code: CURLcode, _ option: CURLoption) {
        precondition(code == CURLE_OK, "curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
    }
}
