/// Where the bucket lives: `https://host[:port]` plus bucket, region and addressing style.
public struct S3Endpoint: Sendable, Equatable {
    /// Path style puts the bucket in the path (`host/bucket/key`); virtual-host style in the host
    /// name (`bucket.host/key`), which AWS requires for new buckets and R2/GCS prefer.
    public enum Addressing: String, Sendable, CaseIterable {
        case path, virtual

        /// Path for an IP address or `localhost` (no DNS name can carry the bucket), else virtual.
        public static func `default`(forHost host: String) -> Addressing {
            let name = host.lowercased()
            if name == "localhost" || name.hasSuffix(".localhost") || name.hasPrefix("[") { return .path }
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            let isIPv4 = labels.count == 4 && labels.allSatisfy { (1...3).contains($0.count) && $0.allSatisfy(\.isASCIIDigit) }
            return isIPv4 ? .path : .virtual
        }
    }

    public let scheme: String
    /// Host name or address as written in the URL (IPv6 in brackets).
    public let host: String
    public let port: Int?
    public let bucket: String
    public let region: String
    public let addressing: Addressing

    /// Parses `http(s)://host[:port][/]`; a path, query or user info is refused (they would be
    /// signed and sent verbatim, and no S3 provider needs them).
    public init(url: String, bucket: String, region: String = "us-east-1", addressing: Addressing? = nil) throws(S3Error) {
        guard let schemeEnd = url.firstRange(of: "://") else { throw S3Error.usage("endpoint \(url): expected http://host[:port] or https://host[:port]") }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw S3Error.usage("endpoint \(url): scheme must be http or https") }
        var authority = url[schemeEnd.upperBound...]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ ".contains($0) }) else {
            throw S3Error.usage("endpoint \(url): expected only scheme, host and port")
        }
        var host = String(authority), port: Int?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                throw S3Error.usage("endpoint \(url): bad port")
            }
            host = String(authority[..<colon])
            port = number
        }
        guard Self.isValidBucketName(bucket) else {
            throw S3Error.usage("bucket \(bucket): names are 3-63 characters of a-z, 0-9, '.' and '-'")
        }
        guard !region.isEmpty, region.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "-" }) else {
            throw S3Error.usage("region \(region): expected letters, digits and '-'")
        }
        let style = addressing ?? .default(forHost: host)
        // A bucket with dots cannot be a TLS host label: its name would not match the certificate.
        if style == .virtual, scheme == "https", bucket.contains(".") {
            throw S3Error.usage("bucket \(bucket) contains '.', which virtual-host addressing over https cannot serve; use --addressing path")
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.bucket = bucket
        self.region = region
        self.addressing = style
    }

    /// The URL of `key` (nil: the bucket itself) with a canonical query.
    public func url(key: String?, query: [(name: String, value: String)] = []) -> String {
        let portPart = port.map { ":\($0)" } ?? ""
        var path: String
        let authority: String
        switch addressing {
        case .path:
            authority = host + portPart
            path = "/" + bucket
            if let key { path += "/" + S3Encoding.uriEncode(key, keepingSlash: true) }
        case .virtual:
            authority = bucket + "." + host + portPart
            path = "/" + S3Encoding.uriEncode(key ?? "", keepingSlash: true)
        }
        let queryPart = query.isEmpty ? "" : "?" + S3Encoding.canonicalQuery(query)
        return "\(scheme)://\(authority)\(path)\(queryPart)"
    }

    /// The value for `CURLOPT_AWS_SIGV4`: all four fields, so libcurl never guesses the region
    /// and service from host labels (it would on `<account>.r2.cloudflarestorage.com`).
    public var sigV4Provider: String { "aws:amz:\(region):s3" }

    /// S3's bucket naming rule (lowercase, so it is also a valid DNS label sequence).
    static func isValidBucketName(_ name: String) -> Bool {
        guard (3...63).contains(name.utf8.count), let first = name.first, let last = name.last,
              first.isASCIILetterOrDigit, last.isASCIILetterOrDigit else { return false }
        return name.allSatisfy { ($0.isASCIILetterOrDigit && !$0.isUppercase) || $0 == "." || $0 == "-" }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
    var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
