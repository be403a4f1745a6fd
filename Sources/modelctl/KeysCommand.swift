import ArgumentParser
import Foundation
import ModelCatalog
import ModeldSigning

/// `modelctl keys generate|list` (SPEC §12): Ed25519 signing keys as one-line files.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Create and list signing keys.",
        subcommands: [KeysGenerate.self, KeysList.self])

    static let defaultDirectory = "config/keys"
}

struct KeysGenerate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate", abstract: "Create NAME.key (0600) and NAME.pub; print the keyid and public key.",
        discussion: "Nothing is written if NAME.key or NAME.pub exists (exit 1). Ship the printed public key "
            + "(or the .pub file) in apps; keep the .key on the server only.")

    @Option(help: "Key name: [A-Za-z0-9_-]{1,64}.") var name: String
    @Option(help: "Directory (created 0700 when missing).") var out = KeysCommand.defaultDirectory
    @Flag(help: "Machine-readable JSON output.") var json = false

    func validate() throws {
        guard (1...64).contains(name.utf8.count),
              name.utf8.allSatisfy({ $0 < 0x80 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")) })
        else { throw ValidationError("--name must be 1-64 characters of [A-Za-z0-9_-]") }
    }

    func run() throws {
        try failing {
            let key = SigningKey.generate()
            let paths: (key: String, pub: String)
            do throws(KeyFileError) { paths = try SigningKeyFile.create(key, name: name, directory: out) } catch {
                throw CLIFailure(error.reason)
            }
            let publicBase64 = Data(key.publicKey.raw).base64EncodedString()
            if json {
                print(#"{"name":"\#(name)","keyid":"\#(key.keyID)","public_key":"\#(publicBase64)","key_file":"\#(paths.key)","pub_file":"\#(paths.pub)"}"#)
            } else {
                print("keyid       \(key.keyID)")
                print("public key  \(publicBase64)")
                print("wrote       \(paths.key) (0600), \(paths.pub)")
            }
        }
    }
}

struct KeysList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the .pub keys of a directory and which of them sign (config `signing`).")

    @Option(help: "Directory holding NAME.pub files.") var dir = KeysCommand.defaultDirectory

    func run() throws {
        try failing {
            // Not swallowed: any failure is reported as the CLI error below (exit 1).
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                throw CLIFailure("cannot read directory \(dir)")
            }
            let signing = SigningConfig.loadedKeyIDs()
            print("name".padding(toLength: 24, withPad: " ", startingAt: 0) + "keyid             signing")
            for file in names.sorted() where file.hasSuffix(".pub") {
                let name = String(file.dropLast(4))
                switch Result(catching: { () throws(KeyFileError) in try SigningKeyFile.loadPublic("\(dir)/\(file)") }) {
                case .success(let key):
                    print(name.padding(toLength: 24, withPad: " ", startingAt: 0) + key.keyID + "  " + (signing.contains(key.keyID) ? "yes" : "no"))
                case .failure(let e):
                    printError("modelctl: \(e.reason)")
                }
            }
        }
    }
}
