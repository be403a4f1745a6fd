#if canImport(Glibc)
import Glibc
#endif
import ModeldSigning

/// Reads key files with the checks of SPEC §12: a private key must be a regular file after
/// following links and carry no group/other permission bit (ssh's rule for identity files).
/// Key bytes are never part of an error message.
public enum SigningKeyFile {
    public static func loadPrivate(_ path: String) throws(KeyFileError) -> SigningKey {
        var st = stat()
        guard stat(path, &st) == 0 else { throw KeyFileError("\(path): \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw KeyFileError("\(path): not a regular file") }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw KeyFileError("\(path): mode \(String(mode, radix: 8)) lets group or others read it; chmod 600 \(path)")
        }
        do throws(KeyFileError) {
            return try KeyFileFormat.parsePrivate(try text(path))
        } catch {
            throw KeyFileError("\(path): \(error.reason)")
        }
    }

    /// Public keys are not secret: any readable regular file.
    public static func loadPublic(_ path: String) throws(KeyFileError) -> TrustedKey {
        do throws(KeyFileError) {
            return try KeyFileFormat.parsePublic(try text(path))
        } catch {
            throw KeyFileError(error.reason.hasPrefix(path) ? error.reason : "\(path): \(error.reason)")
        }
    }

    private static func text(_ path: String) throws(KeyFileError) -> String {
        let bytes: [UInt8]?
        do { bytes = try FileIO.read(path) } catch { throw KeyFileError("\(path): \(error.message)") }
        guard let bytes, bytes.count <= 4096 else { throw KeyFileError("\(path): missing or too large for a key file") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes a new key pair as `<dir>/<name>.key` (0600) and `<dir>/<name>.pub`, creating the
    /// directory 0700; nothing is written when either file exists.
    public static func create(_ key: SigningKey, name: String, directory: String) throws(KeyFileError) -> (key: String, pub: String) {
        let keyPath = "\(directory)/\(name).key", pubPath = "\(directory)/\(name).pub"
        try makeDirectories(directory)
        for p in [keyPath, pubPath] where FileIO.exists(p) { throw KeyFileError("\(p) already exists; nothing written") }
        do throws(CatalogError) {
            // O_EXCL: a concurrent generate with the same name cannot overwrite either file.
            try writeNew(keyPath, KeyFileFormat.privateLine(key), mode: 0o600)
            do throws(CatalogError) { try writeNew(pubPath, KeyFileFormat.publicLine(key.publicKey), mode: 0o644) } catch {
                unlink(keyPath)
                throw error
            }
            try FileIO.fsyncDirectory(directory)
        } catch {
            throw KeyFileError(error.message)
        }
        return (keyPath, pubPath)
    }

    /// `mkdir -p`: parents 0755, the key directory itself 0700 (only when created here).
    private static func makeDirectories(_ directory: String) throws(KeyFileError) {
        var path = directory.hasPrefix("/") ? "" : "."
        let parts = directory.split(separator: "/")
        for (i, part) in parts.enumerated() {
            path += "/" + part
            if mkdir(path, i == parts.count - 1 ? 0o700 : 0o755) != 0 && errno != EEXIST {
                throw KeyFileError("cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func writeNew(_ path: String, _ text: String, mode: mode_t) throws(CatalogError) {
        let fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        defer { close(fd) }
        fchmod(fd, mode)   // the umask must not widen or narrow what SPEC §12 fixes
        try FileIO.writeAll(fd, Array(text.utf8), path: path)
        try FileIO.fsync(fd, path: path)
    }
}
