import AccessTokens
import ArgumentParser
import CivilTime
import Foundation
import JSONSupport

/// `modelctl tokens create|list|revoke` (SPEC §15.1): named tokens with a role, through the
/// server (with an admin token) or straight in a data directory (`--data-dir`; running servers
/// on it pick the change up within 2 s). The file keeps only each secret's SHA-256.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Create, list and revoke named tokens (roles viewer, publisher, admin).",
        subcommands: [TokensCreate.self, TokensList.self, TokensRevoke.self])
}

/// Where the tokens are: the server (`--server`, `--token`), or a data directory.
struct TokensTarget: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @Option(help: "Change DIR/tokens.json without a server (running servers pick it up within 2 s).")
    var dataDir: String?

    func validate() throws {
        if dataDir != nil, global.server != nil || global.token != nil || global.tokenFile != nil {
            throw ValidationError("--data-dir works without a server: leave out --server, --token and --token-file")
        }
    }

    var store: TokenStore? { dataDir.map(TokenStore.init(dataDir:)) }

    func change<T>(_ body: (inout TokenBook) throws(TokenBookError) -> T, in store: TokenStore) throws(CLIFailure) -> T {
        do { return try store.change(body) } catch { throw CLIFailure("\(store.path): \(error.message)") }
    }
}

struct TokensCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a token and print its secret, the only time it is shown.",
        discussion: "viewer: reads releases and the console without controls; publisher: also publishes and steers "
            + "releases, variants and experiments; admin: everything, tokens included.")

    @OptionGroup var target: TokensTarget
    @Option(help: "Token name: 1-64 characters of [A-Za-z0-9._@-] (admin is the configured admin token).") var name: String
    @Option(help: "admin, publisher or viewer.") var role: String
    @Option(help: "Days until it expires, 1-36500 (default: never).") var expiresDays: Int?

    func validate() throws {
        guard NamedToken.isValidName(name) else { throw ValidationError("--name must be 1-64 characters of [A-Za-z0-9._@-]") }
        guard Role(rawValue: role) != nil else { throw ValidationError("--role must be admin, publisher or viewer") }
        if let expiresDays, !(1...36_500).contains(expiresDays) { throw ValidationError("--expires-days must be 1-36500") }
    }

    func run() throws {
        try failing {
            let created: (token: String, expires: String?)
            if let store = target.store {
                let secret = TokenBook.newSecret()
                let token = try target.change({ (book) throws(TokenBookError) -> NamedToken in
                    try book.add(name: name, role: Role(rawValue: role)!, secretSHA256: TokenBook.digest(secret),
                                 nowMillis: Int64(Date().timeIntervalSince1970 * 1_000), expiresDays: expiresDays)
                }, in: store)
                created = (secret, token.expiresMillis.map { RFC3339.format(milliseconds: $0) })
            } else {
                var w = JSONWriter(capacity: 128)
                w.beginObject()
                w.field("name", name)
                w.field("role", role)
                w.key("expires_days")
                if let expiresDays { w.int(expiresDays) } else { w.null() }
                w.endObject()
                let body = try target.global.adminClient()
                    .send(HTTPClientRequest(method: "POST", path: "/admin/tokens", body: .json(w.bytes))).expect(201).body
                guard let answer = try? JSONReader.parse(body).value, let secret = answer["token"]?.stringValue else {
                    throw CLIFailure("the server's answer has no token")
                }
                created = (secret, answer["expires"]?.stringValue)
            }
            if target.global.json {
                var w = JSONWriter(capacity: 192)
                w.beginObject()
                w.field("name", name)
                w.field("role", role)
                w.field("token", created.token)
                w.key("expires")
                if let expires = created.expires { w.string(expires) } else { w.null() }
                w.endObject()
                print(w.string)
            } else {
                print("token    \(created.token)")
                print("name     \(name) (\(role))")
                print("expires  \(created.expires ?? "never")")
                printError("modelctl: the token is shown only now: store it (the server keeps only its SHA-256)")
            }
        }
    }
}

struct TokensList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the named tokens: name, role, created, expires, last used (never a secret).")

    @OptionGroup var target: TokensTarget

    func run() throws {
        try failing {
            let listing: [UInt8]
            if let store = target.store {
                do throws(TokenBookError) { listing = try store.load().listingJSON } catch { throw CLIFailure("\(store.path): \(error.message)") }
            } else {
                let body = try target.global.adminClient().send(HTTPClientRequest(path: "/admin/tokens")).expect(200).body
                guard let root = try? JSONReader.parse(body), let tokens = root["tokens"] else {
                    throw CLIFailure("the server's answer has no tokens")
                }
                listing = Array(body[tokens.range])
            }
            if target.global.json { return print(String(decoding: listing, as: UTF8.self)) }
            guard case .array(let entries)? = try? JSONReader.parse(listing).value else { throw CLIFailure("unreadable token list") }
            let rows = [["name", "role", "created", "expires", "last used"]] + entries.map { e in
                ["name", "role", "created", "expires", "last_used"].map { e.value[$0]?.stringValue ?? "–" }
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max()! }
            for row in rows {
                print(zip(row, widths).map { $0.padding(toLength: $1 + 2, withPad: " ", startingAt: 0) }.joined()
                    .trimmingCharacters(in: .whitespaces))
            }
        }
    }
}

struct TokensRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token: it opens nothing on any replica within 2 s, its console sessions end.")

    @OptionGroup var target: TokensTarget
    @Argument(help: "Token name.") var name: String

    func validate() throws {
        guard NamedToken.isValidName(name) else { throw ValidationError("the name must be 1-64 characters of [A-Za-z0-9._@-]") }
    }

    func run() throws {
        try failing {
            let entry: [UInt8]
            if let store = target.store {
                entry = TokenBook.listing(try target.change({ (book) throws(TokenBookError) -> NamedToken in try book.revoke(name) }, in: store))
            } else {
                entry = try target.global.adminClient()
                    .send(HTTPClientRequest(method: "DELETE", path: "/admin/tokens/\(name)")).expect(200).body
            }
            print(target.global.json ? String(decoding: entry, as: UTF8.self) : "revoked \(name)")
        }
    }
}
