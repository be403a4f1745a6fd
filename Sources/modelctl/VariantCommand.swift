import ArgumentParser
import ModelCatalog
import ObjectStorage

/// `modelctl variant add|remove` (SPEC §3.1): device-class files of a release, through the
/// server or, with `--models-dir`, straight into a models directory.
struct VariantCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "variant", abstract: "Add or remove a release's device-class variant files.",
        subcommands: [VariantAddCommand.self, VariantRemoveCommand.self])
}

struct VariantAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add FILE as a variant of release ID.",
        discussion: "Update checks whose device meets every condition of --requires get FILE instead of the "
            + "release's own file; variants are tried in the order they were added. --requires is "
            + "key=value pairs separated by ',' (lists by '|'): platform, min_os, min_ram_mb, device_prefix, "
            + "e.g. 'min_ram_mb=7000,platform=ios|ipados', or the same as a JSON object.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String
    @Argument(help: "The variant's model file.") var file: String
    @Option(help: "Variant name, [a-z0-9_-]{1,32}, unique within the release.") var name: String
    @Option(help: "Device conditions (at least one), e.g. 'min_ram_mb=7000,platform=ios'.") var requires: String
    @OptionGroup var offline: OfflineOptions

    func validate() throws {
        try AdminValidation.releaseID(id)
        let ext = try AdminValidation.ext(ofFile: file)
        do throws(CatalogError) {
            _ = try VariantRequest(name: name, requires: requires, ext: ext)
        } catch {
            throw ValidationError("--\(error.parameter ?? "requires"): \(error.message)")   // e.g. --requires.colour: unknown condition
        }
    }

    func run() throws {
        try failing {
            let ext = try AdminValidation.ext(ofFile: file)
            let body: [UInt8]
            if let offline = try offline.publisher() {
                body = try offline.addVariant(to: id, file: file, name: name, requires: requires, ext: ext)
            } else {
                body = try global.adminAPI().addVariant(to: id, file: file, name: name, requires: requires, ext: ext)
            }
            try ReleaseOutput(json: global.json).printRelease(body)
        }
    }
}

struct VariantRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Stop answering a variant; its file stays served for the retired-file grace period.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String
    @Argument(help: "Variant name.") var name: String
    @OptionGroup var offline: OfflineOptions

    func validate() throws { try AdminValidation.releaseID(id) }

    func run() throws {
        try failing {
            let body: [UInt8]
            if let offline = try offline.publisher() {
                body = try offline.removeVariant(named: name, from: id)
            } else {
                body = try global.adminAPI().removeVariant(named: name, from: id)
            }
            try ReleaseOutput(json: global.json).printRelease(body)
        }
    }
}

extension OfflinePublisher {
    func addVariant(to id: String, file: String, name: String, requires: String, ext: String) throws(CLIFailure) -> [UInt8] {
        _ = try PublishFileSource(path: file)
        do throws(CatalogError) {
            let request = try VariantRequest(name: name, requires: requires, ext: ext)
            // Fail fast before copying the file; the check that counts is the one under the lock.
            try store.load().release(id: id)?.precheckVariant(named: request.name)
            return try store.addVariantFile(path: file, to: id, request, instance: instance).adminJSON()
        } catch {
            throw CLIFailure(error)
        }
    }

    func removeVariant(named name: String, from id: String) throws(CLIFailure) -> [UInt8] {
        do throws(CatalogError) { return try store.removeVariant(named: name, from: id).adminJSON() } catch { throw CLIFailure(error) }
    }
}

extension AdminAPI {
    /// Streamed like publish: chunked, the SHA-256 as trailer.
    func addVariant(to id: String, file: String, name: String, requires: String, ext: String) throws(CLIFailure) -> [UInt8] {
        let source = try PublishFileSource(path: file)
        let upload = HTTPClientRequest(
            method: "POST", path: "/admin/models/\(id)/variants", query: [("name", name), ("requires", requires), ("ext", ext)],
            body: .stream(source, contentType: "application/octet-stream"),
            progress: ProgressBar.forTerminal(total: source.size))
        return try client.send(upload).expect(201).body
    }

    func removeVariant(named name: String, from id: String) throws(CLIFailure) -> [UInt8] {
        let path = "/admin/models/\(id)/variants/\(S3Encoding.uriEncode(name))"
        return try client.send(HTTPClientRequest(method: "DELETE", path: path)).expect(200).body
    }
}
