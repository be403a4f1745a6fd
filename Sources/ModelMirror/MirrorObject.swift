import ModelCatalog

/// One object the bucket should hold after a mirror: where its bytes are locally, what they
/// are (size, SHA-256) and the headers it is stored with (SPEC §9.1).
public struct MirrorObject: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A model (or variant) file or its chunk list: immutable, uploaded first.
        case modelFile = "model"
        /// A signed catalog snapshot `models/details/<N>.json` or a rules snapshot
        /// `models/rules/<channel>/<N>.json`: immutable, after the files.
        case snapshot
        /// The rules pointers `models/rules/<channel>.sig.json`, then `latest_model_details.json`
        /// and its `.sig.json`: replaced in place, uploaded last.
        case pointer
    }

    public let kind: Kind
    /// The bucket key, prefix included.
    public let key: String
    public let localPath: String
    public let size: Int64
    public let sha256: String
    public let contentType: String
    public let cacheControl: String

    public init(kind: Kind, key: String, localPath: String, size: Int64, sha256: String, contentType: String, cacheControl: String) {
        self.kind = kind
        self.key = key
        self.localPath = localPath
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
        self.cacheControl = cacheControl
    }

    /// Immutable objects are created with `If-None-Match: *`; pointers are overwritten.
    public var isImmutable: Bool { kind != .pointer }

    public static let immutableCacheControl = "public, max-age=31536000, immutable"
}

/// A local JSON file to mirror, already measured and hashed by the caller.
public struct LocalJSON: Sendable, Equatable {
    /// Path under `models/` (`latest_model_details.json`, `details/12.json`).
    public let name: String
    public let localPath: String
    public let size: Int64
    public let sha256: String

    public init(name: String, localPath: String, size: Int64, sha256: String) {
        self.name = name
        self.localPath = localPath
        self.size = size
        self.sha256 = sha256
    }
}

extension MirrorObject {
    /// Everything the bucket should hold for `catalog`, in upload order: every model and variant
    /// file not garbage-collected (publication order, each release's variants in insertion order
    /// after its own file; removed variants and retired releases in grace included, since modeld
    /// serves them too), then details snapshots (ascending N) and rules snapshots (by channel,
    /// ascending N), then the rules pointers and the rules index, `latest_model_details.json`
    /// and its `.sig.json` last — so no JSON is ever visible before the files it names (SPEC §9.1, §9.2).
    /// `json` lists the JSON files present locally; absent ones are simply not mirrored.
    public static func desired(catalog: Catalog, modelsDir: String, prefix: String, json: [LocalJSON], pointerMaxAge: Int) -> [MirrorObject] {
        let base = prefix.isEmpty ? "models/" : prefix + "/models/"
        func file(_ name: String, size: Int64, sha256: String, contentType: String) -> MirrorObject {
            MirrorObject(kind: .modelFile, key: base + name, localPath: modelsDir + "/" + name, size: size, sha256: sha256,
                         contentType: contentType, cacheControl: immutableCacheControl)
        }
        var objects: [MirrorObject] = []
        for release in catalog.releases {
            // Each file's chunk list (SPEC §14), pack and patches (§16) right after it: all
            // before any JSON naming them.
            func derived(_ files: [DerivedFile]) {
                objects += files.map { file($0.name, size: $0.size, sha256: $0.sha256, contentType: Release.byteStream) }
            }
            if release.fileDeletedAt == nil {
                objects.append(file(release.file, size: release.size, sha256: release.sha256, contentType: release.servedContentType))
                derived(release.derivedFiles)
            }
            // The Content-Type modeld's /models/ serves the variant with (docs/decisions/object-storage.md).
            for v in release.variants where v.fileDeletedAt == nil {
                objects.append(file(v.file, size: v.size, sha256: v.sha256, contentType: v.contentType))
                derived(v.derivedFiles)
            }
        }
        // Details first, then rules by channel; each in ascending N.
        let snapshots = json.compactMap { file -> (group: String, number: Int, file: LocalJSON)? in
            guard let (group, number) = snapshotNumber(file.name) else { return nil }
            return (group, number, file)
        }.sorted { ($0.group, $0.number) < ($1.group, $1.number) }
        for (_, _, file) in snapshots {
            objects.append(MirrorObject(kind: .snapshot, key: base + file.name, localPath: file.localPath, size: file.size, sha256: file.sha256,
                                        contentType: "application/json", cacheControl: immutableCacheControl))
        }
        // The rules index (SPEC §17.2, `rules/index.sig.json`, listed as a pointer) after the
        // channels' pointers: every snapshot it names is already up.
        let rulesPointers = json.map(\.name).filter(isRulesPointer).sorted { ($0 == rulesIndexName ? 1 : 0, $0) < ($1 == rulesIndexName ? 1 : 0, $1) }
        for name in rulesPointers + pointerNames {
            guard let file = json.first(where: { $0.name == name }) else { continue }
            objects.append(MirrorObject(kind: .pointer, key: base + name, localPath: file.localPath, size: file.size, sha256: file.sha256,
                                        contentType: "application/json", cacheControl: "public, max-age=\(pointerMaxAge)"))
        }
        return objects
    }

    static let rulesIndexName = "rules/index.sig.json"

    /// The details pointer files, in the order they are uploaded (after the rules pointers).
    public static let pointerNames = ["latest_model_details.json", "latest_model_details.sig.json"]

    /// Every JSON name the mirror reads under models/, given a directory listing (`list(dir)`
    /// answers the entry names of `dir` relative to models/, empty when absent): the details
    /// pointers, `details/<N>.json`, `rules/<channel>.sig.json` and `rules/<channel>/<N>.json`.
    public static func jsonNames<E: Error>(list: (String) throws(E) -> [String]) throws(E) -> [String] {
        var names = pointerNames
        names += try list("details").filter { snapshotNumber("details/" + $0) != nil }.map { "details/" + $0 }
        for entry in try list("rules").sorted() {
            if isRulesPointer("rules/" + entry) {
                names.append("rules/" + entry)
            } else if NameRule.matches(entry) {
                names += try list("rules/" + entry).filter { snapshotNumber("rules/\(entry)/\($0)") != nil }.sorted().map { "rules/\(entry)/\($0)" }
            }
        }
        return names
    }

    /// `details/<N>.json` → ("details", N); `rules/<channel>/<N>.json` → ("rules/<channel>", N).
    static func snapshotNumber(_ name: String) -> (String, Int)? {
        guard name.hasSuffix(".json"), let slash = name.lastIndex(of: "/") else { return nil }
        let group = String(name[..<slash])
        let digits = name[name.index(after: slash)...].dropLast(".json".count)
        guard group == "details" || (group.hasPrefix("rules/") && NameRule.matches(group.dropFirst("rules/".count))),
              !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), String(number) == digits else { return nil }
        return (group, number)
    }

    static func isRulesPointer(_ name: String) -> Bool {
        name.hasPrefix("rules/") && name.hasSuffix(".sig.json")
            && NameRule.matches(name.dropFirst("rules/".count).dropLast(".sig.json".count))
    }
}
