import Foundation

/// The HTTP clients of one cache's channels, shared by all of them (SPEC §13.2): checks, rules
/// and events on every network; model bytes under the configuration's conditions; whole files
/// through the app's background session when it has one.
struct ChannelTransports: Sendable {
    /// Checks, rules and events.
    let control: any HTTPTransport
    /// The file, its chunk list and delta ranges; `control` itself when the conditions restrict nothing.
    let modelBytes: any HTTPTransport
    /// Whole model files (Apple's background session), nil: `modelBytes`.
    let wholeFiles: (any BackgroundSession)?

    init(_ configuration: ModeldConfiguration) throws {
        control = try makeHTTPTransport(configuration.transport, access: configuration.conditions.networkAccess(for: .updateCheck))
        let access = configuration.conditions.networkAccess(for: .modelFile)
        modelBytes = access == .unrestricted ? control : try makeHTTPTransport(configuration.transport, access: access)
        wholeFiles = configuration.wholeFileSession
    }

    func invalidate() {
        control.invalidate()
        modelBytes.invalidate()
    }
}

/// The cache directories this process has an object for: one each (SPEC §13.2), so two objects
/// never race on one cache's state within a process — the second is refused with an error
/// that says what to do, instead of meeting the channel lock later.
enum OpenCaches {
    private static let open = Locked<Set<String>>([])

    /// Claims `directory` for one object; returns the key to release.
    static func claim(_ directory: URL) throws -> String {
        let key = directory.standardizedFileURL.resolvingSymlinksInPath().path
        let claimed = open.withLock { $0.insert(key).inserted }
        guard claimed else {
            throw ModeldClientError.cacheInUse("this process already has an object for \(key): share it "
                + "(one ModelCache serves every channel; close() the other first to replace it)")
        }
        return key
    }

    static func release(_ key: String) { _ = open.withLock { $0.remove(key) } }
}
