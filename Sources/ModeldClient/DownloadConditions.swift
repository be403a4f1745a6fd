import Foundation

/// When a release may be downloaded (Firebase's `ModelDownloadConditions`, SPEC §13.1).
public struct DownloadConditions: Sendable, Equatable {
    /// Cellular networks (URLSession's `allowsCellularAccess`; Apple platforms).
    public var allowsCellular: Bool
    /// Networks the system calls expensive, e.g. cellular or a personal hotspot (Apple platforms).
    public var allowsExpensive: Bool
    /// Networks in Low Data Mode (Apple platforms).
    public var allowsConstrained: Bool
    /// A release larger than this is reported `available` and not downloaded (every platform).
    public var maxBytes: Int64?

    public init(allowsCellular: Bool = true, allowsExpensive: Bool = true, allowsConstrained: Bool = true,
                maxBytes: Int64? = nil) {
        self.allowsCellular = allowsCellular
        self.allowsExpensive = allowsExpensive
        self.allowsConstrained = allowsConstrained
        self.maxBytes = maxBytes
    }

    /// Whether `release` may be fetched under these conditions (the network ones are the
    /// transport's to enforce).
    func admits(_ release: Release) -> Bool { maxBytes.map { release.size <= $0 } ?? true }
}

/// Which HTTP client sends the requests.
public enum TransportKind: String, Sendable, CaseIterable {
    /// URLSession on Apple platforms, libcurl on Linux.
    case automatic
    /// URLSession (FoundationNetworking on Linux, which buffers without flow control: slower there).
    case urlSession
    /// libcurl; Linux only.
    case libcurl
}

/// What ``ModeldClient/model(policy:progress:)`` waits for (Firebase's `ModelDownloadType`).
public enum ModelPolicy: Sendable, Equatable {
    /// The installed or bundled model now, without touching the network (nil: none yet).
    case local
    /// The installed model now, and an update in the background; with none installed, as `latest`.
    case localThenUpdateInBackground
    /// Waits for the check, and for the download and install of a newer release.
    case latest
}

/// The platform's transport, or the one asked for.
/// - Parameter idleTimeout: a request that receives nothing for this long fails.
func makeHTTPTransport(_ kind: TransportKind = .automatic, conditions: DownloadConditions = DownloadConditions(),
                       idleTimeout: Int = 60) throws -> any HTTPTransport {
    switch kind {
    case .urlSession:
        return URLSessionTransport(idleTimeout: idleTimeout, conditions: conditions)
    case .libcurl:
        #if os(Linux)
        return CurlHTTPTransport(idleTimeout: idleTimeout)
        #else
        throw ModeldClientError.invalidConfiguration("the libcurl transport is Linux-only")
        #endif
    case .automatic:
        // FoundationNetworking cannot apply back-pressure to a data task (docs/decisions/client.md).
        #if os(Linux)
        return CurlHTTPTransport(idleTimeout: idleTimeout)
        #else
        return URLSessionTransport(idleTimeout: idleTimeout, conditions: conditions)
        #endif
    }
}
