import Foundation

/// Finds the admin token (SPEC §7): `--token`, else `--token-file`, else `MODELD_ADMIN_TOKEN`,
/// else the shipped config's setting — `admin_token_file` (or `admin_token`) in
/// `./config/modeld.json`, read as modeld reads it — else `data/admin.token` when it exists
/// (where the shipped config's modeld creates it on first start).
enum TokenSource {
    static let defaultFile = "data/admin.token"

    static func resolve(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIFailure) -> String {
        if let token = options.token { return token }
        if let file = options.tokenFile { return try read(file) }
        if let token = environment["MODELD_ADMIN_TOKEN"], !token.isEmpty { return token }
        switch try ShippedConfig.load()?.adminToken {
        case .token(let token)?: return token
        // A configured file that is missing is an error, not a cue to try another token.
        case .file(let path)?: return try read(path, named: "admin_token_file \(path) in \(ShippedConfig.path)")
        case nil: break
        }
        if FileManager.default.fileExists(atPath: defaultFile) { return try read(defaultFile) }
        throw CLIFailure("no admin token: pass --token or --token-file, set MODELD_ADMIN_TOKEN, or run where "
            + "\(ShippedConfig.path) names admin_token_file or \(defaultFile) exists")
    }

    /// The file's content without surrounding whitespace (editors and `echo` add a newline).
    private static func read(_ path: String, named name: String? = nil) throws(CLIFailure) -> String {
        let what = name ?? "token file \(path)"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIFailure("cannot read \(what): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = Foundation.read(fd, &bytes, bytes.count)
        guard count >= 0 else { throw CLIFailure("cannot read \(what): \(String(cString: strerror(errno)))") }
        let token = String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: \.isNewline) else { throw CLIFailure("\(what) must hold one non-empty line") }
        return token
    }
}
