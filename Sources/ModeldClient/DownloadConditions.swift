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
    func admits(_ release: ReleaseDocument) -> Bool { maxBytes.map { release.size <= $0 } ?? true }

    /// The networks `traffic` may use: the conditions bind model bytes only; checks, rules and
    /// events go anywhere, so a phone on cellular still learns what is new and sends its
    /// events (SPEC §13.2).
    func networkAccess(for traffic: Traffic) -> NetworkAccess {
        traffic.isModelBytes ? NetworkAccess(cellular: allowsCellular, expensive: allowsExpensive, constrained: allowsConstrained)
            : .unrestricted
    }
}

/// What a client sends, for ``DownloadConditions/networkAccess(for:)``.
enum Traffic: CaseIterable {
    case updateCheck, rules, events, modelFile, chunkList, chunkRanges

    /// Bytes of a model: the file, its chunk list and the ranges a delta fetches.
    var isModelBytes: Bool {
        switch self {
        case .updateCheck, .rules, .events: false
        case .modelFile, .chunkList, .chunkRanges: true
        }
    }
}

/// URLSession's three network-kind switches for one session (Apple platforms; libcurl on Linux
/// has no such notion, and Linux devices have no cellular interface to tell apart).
struct NetworkAccess: Equatable {
    var cellular: Bool
    var expensive: Bool
    var constrained: Bool

    static let unrestricted = NetworkAccess(cellular: true, expensive: true, constrained: true)
}

/// A model download that the network kind of the moment (cellular, expensive, Low Data Mode)
/// may not use: the release stays `available`, and nothing failed (SPEC §13.2).
struct HeldBackByConditions: Error {}

/// Which HTTP client sends the requests.
public enum TransportKind: String, Sendable, CaseIterable {
    /// URLSession on Apple platforms, libcurl on Linux.
    case automatic
    /// URLSession (FoundationNetworking on Linux, which buffers without flow control: slower there).
    case urlSession
    /// libcurl; Linux only.
    case libcurl
}

/// What ``ModelChannel/model(policy:progress:)`` waits for (Firebase's `ModelDownloadType`).
public enum ModelPolicy: Sendable, Equatable {
    /// The installed or bundled model now, without touching the network (nil: none yet).
    case local
    /// The installed model now, and an update in the background; with none installed, as `latest`.
    case localThenUpdateInBackground
    /// Waits for the check, and for the download and install of a newer release.
    case latest
}

/// The platform's transport, or the one asked for.
/// - Parameter access: the networks it may use (URLSession only).
/// - Parameter idleTimeout: a request that receives nothing for this long fails.
func makeHTTPTransport(_ kind: TransportKind = .automatic, access: NetworkAccess = .unrestricted,
                       idleTimeout: Int = 60) throws -> any HTTPTransport {
    switch kind {
    case .urlSession:
        return URLSessionTransport(idleTimeout: idleTimeout, access: access)
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
        return URLSessionTransport(idleTimeout: idleTimeout, access: access)
        #endif
    }
}
