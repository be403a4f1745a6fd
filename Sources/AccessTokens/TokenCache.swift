import DurableFiles
import Synchronization

/// The server's copy of the named tokens. A request checks a secret against memory only (no
/// file read on the request path); `refresh()`, which a background thread runs every
/// `pollMillis`, `stat`s the file and reads it again only when it changed, so a revocation made
/// by any replica or by `modelctl --data-dir` is in force here within one poll (SPEC §15.1: 2 s).
/// Uses are noted in memory and written back by `refresh()`, at most once a minute per token.
public final class TokenCache: Sendable {
    public static let pollMillis: Int32 = 500
    /// `last_used` is kept to the minute: a busy token is not a write per request.
    public static let useGranularityMillis: Int64 = 60_000

    private struct State {
        var book = TokenBook()
        var stamp: FileStamp?
        /// Token SHA-256 → latest use not yet written.
        var uses: [String: Int64] = [:]
    }

    public let store: TokenStore
    private let state = Mutex(State())
    /// One refresh at a time (the poller's, and a change's own on this replica), so an older
    /// read never replaces a newer one.
    private let refreshing = Mutex(())

    public init(store: TokenStore) { self.store = store }

    /// The live named token whose secret is `secret`, as a principal; its use is noted.
    public func authenticate(secret: String, nowMillis: Int64) -> Principal? {
        let book = state.withLock { $0.book }
        guard let token = book.authenticate(secret: secret, nowMillis: nowMillis) else { return nil }
        if token.lastUsedMillis.map({ nowMillis - $0 >= Self.useGranularityMillis }) ?? true {
            state.withLock { $0.uses[token.sha256] = nowMillis }
        }
        return token.principal
    }

    /// False once the token `principal` signed in with is revoked or expired.
    public func stillValid(_ principal: Principal, nowMillis: Int64) -> Bool {
        state.withLock { $0.book }.stillValid(principal, nowMillis: nowMillis)
    }

    /// Writes the uses noted since the last call, then reads the file again if it changed.
    /// A file that cannot be read or parsed leaves no named token open (fail closed) until it
    /// is fixed; the error is returned once per version, for the log.
    public func refresh() -> TokenBookError? {
        refreshing.withLock { _ in refreshOnce() }
    }

    private func refreshOnce() -> TokenBookError? {
        let pending = state.withLock { s in
            defer { s.uses = [:] }
            return s.uses
        }
        var failure: TokenBookError?
        if !pending.isEmpty {
            do throws(TokenBookError) { _ = try store.change { $0.recordUses(pending) } } catch { failure = error }
        }
        let stamp = store.stamp()
        guard state.withLock({ $0.stamp }) != stamp else { return failure }
        // Stat before reading: a change mid-read shows as a new stamp at the next poll.
        do throws(TokenBookError) {
            let book = try store.load()
            state.withLock { $0.book = book; $0.stamp = stamp }
            return failure
        } catch {
            state.withLock { $0.book = TokenBook(); $0.stamp = stamp }
            return error
        }
    }
}
