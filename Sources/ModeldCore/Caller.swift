import AccessTokens
import Console
import DurableFiles
import Logging
import ModelCatalog
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Who made an admin request (SPEC §15.1): the token's principal, the console session it came
/// through (nil: a bearer token), and the client's address. Every change is recorded under it.
struct Caller: Sendable {
    let principal: Principal
    let session: String?
    let address: String
    let audit: AuditLog

    func record(_ action: String, release: String, before: Release?, after: Release?) {
        record(action, .release(release, before: before, after: after))
    }

    func record(_ action: String, token: NamedToken) {
        record(action, .token(name: token.name, role: token.role))
    }

    private func record(_ action: String, _ subject: AuditEntry.Subject) {
        audit.append(AuditEntry.json(time: .now(), action: action, actor: principal.name, peer: address, session: session,
                                     subject: subject))
    }
}

/// `data/audit.jsonl`: one line per admin change, sign-in and sign-out, appended and fsynced
/// before the answer. Appends are serialised so lines never interleave.
final class AuditLog: Sendable {
    let path: String
    private let lock = Mutex(())

    init(path: String) { self.path = path }

    func append(_ line: [UInt8]) {
        lock.withLock { _ in
            do throws(IOFailure) {
                try DurableFile.appendLine(line, to: path)
            } catch {
                // The change is made and answered; the operator learns from the log that its record is missing.
                Logger(label: "modeld.audit").error("cannot append to \(path): \(error)")
            }
        }
    }

    /// The last `limit` lines that match, newest first, read backwards from the end of the
    /// file (64 KiB at a time): the view costs the lines it shows, not the file's length,
    /// unless a filter matches little.
    func recent(limit: Int, matching keep: (AuditLine) -> Bool) -> [AuditLine] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return [] }
        var end = Int64(st.st_size)
        var carry: [UInt8] = []   // the start of a line whose beginning is in the next chunk back
        var found: [AuditLine] = []
        while end > 0 && found.count < limit {
            let start = max(0, end - 65_536)
            var chunk = [UInt8](repeating: 0, count: Int(end - start))
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
            guard n == chunk.count else { break }
            chunk += carry
            var lines = chunk.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            carry = start > 0 ? Array(lines.removeFirst()) : []
            for line in lines.reversed() where !line.isEmpty {
                if let parsed = AuditLine(json: line), keep(parsed) { found.append(parsed) }
                if found.count == limit { break }
            }
            end = start
        }
        return found
    }
}
