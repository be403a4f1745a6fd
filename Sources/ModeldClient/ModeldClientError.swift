import CivilTime
import Foundation

/// Why a check, download or event upload failed. The installed model is never touched by a
/// failure; `description` is one line naming the cause.
public enum ModeldClientError: LocalizedError, Sendable, CustomStringConvertible, Equatable {
    /// The configuration cannot work (bad SDK version, bad URL, unreadable key file).
    case invalidConfiguration(String)
    /// Another process holds this cache directory.
    case cacheInUse(String)
    /// The transport failed (connection refused, reset, timed out).
    case network(String)
    /// The server answered an error status (`code` is SPEC §10's error code when it sent one).
    case server(status: Int, code: String?, message: String)
    /// The answer or the file did not verify (signature, expiry, catalog version, size, SHA-256,
    /// SDK range or channel); nothing was installed.
    case verification(String)
    /// Not enough free space for the rest of the download plus 10 %.
    case insufficientStorage(needed: Int64, available: Int64)
    /// A local file operation failed.
    case io(String)
    /// A request that cannot be done (deleting the active model, an unknown or unblocked id, a
    /// closed client); nothing changed.
    case refused(String)
    /// A previous failure's back-off (or the server's `Retry-After`) has not yet passed.
    case deferred(until: Date)

    public var description: String {
        switch self {
        case .invalidConfiguration(let m): "invalid configuration: \(m)"
        case .cacheInUse(let m): "cache in use: \(m)"
        case .network(let m): "network: \(m)"
        case .server(let status, let code, let message):
            "server answered \(status)\(code.map { " \($0)" } ?? "")\(message.isEmpty ? "" : ": \(message)")"
        case .verification(let m): "verification failed: \(m)"
        case .insufficientStorage(let needed, let available):
            "insufficient storage (insufficient_storage): need \(needed) bytes, \(available) available"
        case .io(let m): "i/o: \(m)"
        case .refused(let m): "refused: \(m)"
        case .deferred(let until): "backing off until \(RFC3339.format(milliseconds: Int64((until.timeIntervalSince1970 * 1000).rounded(.down))))"
        }
    }

    /// `localizedDescription` says what happened, not "ModeldClientError error 4".
    public var errorDescription: String? { description }
}
