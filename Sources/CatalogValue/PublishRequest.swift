import Guardrails

/// The validated parameters of a publish (`POST /admin/models?…`, `modelctl publish`).
public struct PublishRequest: Equatable, Sendable {
    public let sdkMin: String
    public let sdkMax: String?
    public let channel: String
    public let rolloutPercent: Int
    public let label: String
    public let ext: String
    public let contentType: String
    /// An imported id to keep (`--id`); nil = a fresh random v4.
    public let id: String?
    /// A challenger's guard (SPEC §11.1): the release then starts at its first stage.
    public let guardPlan: GuardPlan?
    /// The model it applies on top of (SPEC §3.2).
    public let base: ReleaseBase?
    public let info: ReleaseInfo

    public init(
        sdkMin: String, sdkMax: String? = nil, channel: String? = nil, rolloutPercent: Int? = nil,
        label: String? = nil, ext: String, contentType: String? = nil, id: String? = nil, guardPlan: GuardPlan? = nil,
        base: ReleaseBase? = nil, info: ReleaseInfo = .none
    ) throws(CatalogError) {
        _ = try Release.validateRange(sdkMin: sdkMin, sdkMax: sdkMax)
        let channel = channel ?? Release.defaultChannel
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkPublishableChannel(channel) }
        let rollout = rolloutPercent ?? 100
        try Release.validateRollout(rollout)
        let label = label ?? ""
        try Release.validateLabel(label)
        try Release.validateExt(ext)
        let contentType = contentType ?? Release.defaultContentType(forExt: ext)
        try Release.validatePublishableContentType(contentType)
        if let id { try Release.validateID(id) }
        self.sdkMin = sdkMin
        self.sdkMax = sdkMax
        self.channel = channel
        // "A guarded publish starts at the first stage whatever rollout says" (a given rollout
        // is still validated: a typo is an error either way).
        self.rolloutPercent = guardPlan?.stages[0] ?? rollout
        self.guardPlan = guardPlan
        self.label = label
        self.ext = ext
        self.contentType = contentType
        self.id = id
        self.base = base
        self.info = info
    }

    /// From the admin API's query parameters: `sdk_min` (required), `sdk_max`, `channel`,
    /// `rollout`, `label`, `ext` (required), `id`, `content_type`, `guard` (JSON), and SPEC §3.2's
    /// `base_channel` + `base_sha256` (both or neither), `display_name`, `license_spdx`,
    /// `license_url`, `license_sha256`, `min_ram_mb`. Unknown names are refused so a
    /// typo (`sdkmax`) does not silently publish to every version.
    /// The publish pre-checks, one rule for every writer: 409 `id_in_use` for a kept `id` the
    /// catalog already uses (a release's or a variant file's, SPEC §3, §7.1), 409
    /// `experiment_running` when this guarded publish would overlap a running guard (§11.1).
    /// The server answers them from the request head and modelctl before copying the file,
    /// each against the catalog it last read; `CatalogStore.publish` runs them again under the
    /// lock, and that is the check that counts.
    public func precheck(against catalog: Catalog) throws(CatalogError) {
        if let id, catalog.isIDInUse(id) { throw .idInUse(id) }
        guard guardPlan != nil, let low = SDKVersion(sdkMin),
              let other = catalog.runningGuard(channel: channel, sdkMin: low, sdkMax: sdkMax.flatMap(SDKVersion.init))
        else { return }
        throw .experimentRunning(other)
    }

    public init(parameters: [String: String]) throws(CatalogError) {
        let known: Set<String> = ["sdk_min", "sdk_max", "channel", "rollout", "label", "ext", "id", "content_type", "guard",
                                  "base_channel", "base_sha256", "display_name", "license_spdx", "license_url", "license_sha256", "min_ram_mb"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalid(unknown, "unknown parameter")
        }
        guard let sdkMin = parameters["sdk_min"] else { throw .invalid("sdk_min", "is required") }
        guard let ext = parameters["ext"] else { throw .invalid("ext", "is required") }
        var rollout: Int?
        if let text = parameters["rollout"] {
            guard let v = Int(text), String(v) == text else { throw .invalid("rollout", "must be an integer 0–100") }
            rollout = v
        }
        var minRAM: Int?
        if let text = parameters["min_ram_mb"] {
            guard let v = Int(text), String(v) == text else { throw .invalid("min_ram_mb", "must be an integer 0–10000000") }
            minRAM = v
        }
        try self.init(
            sdkMin: sdkMin, sdkMax: parameters["sdk_max"], channel: parameters["channel"], rolloutPercent: rollout,
            label: parameters["label"], ext: ext, contentType: parameters["content_type"], id: parameters["id"],
            guardPlan: try parameters["guard"].map { (text) throws(CatalogError) in try GuardPlan.operatorInput(json: text) },
            base: try Self.base(channel: parameters["base_channel"], sha256: parameters["base_sha256"]),
            info: try ReleaseInfo(displayName: parameters["display_name"],
                                  license: try Self.license(spdx: parameters["license_spdx"], url: parameters["license_url"],
                                                            sha256: parameters["license_sha256"]),
                                  minRAMMB: minRAM))
    }

    /// `base_channel` and `base_sha256` (or `--base-channel`/`--base-sha256`): both or neither.
    public static func base(channel: String?, sha256: String?) throws(CatalogError) -> ReleaseBase? {
        switch (channel, sha256) {
        case (nil, nil): return nil
        case (nil, _): throw .invalid("base_channel", "is required with base_sha256")
        case (_, nil): throw .invalid("base_sha256", "is required with base_channel")
        case let (channel?, sha256?):
            return try CatalogError.catching { () throws(InvalidInput) in
                do throws(InvalidInput) { return try ReleaseBase(channel: channel, sha256: sha256) } catch {
                    // Named as the flag/parameter was given.
                    throw InvalidInput(error.parameter == "base.channel" ? "base_channel" : "base_sha256", error.message)
                }
            }
        }
    }

    /// The licence from its three optional parts (nil when none is given).
    public static func license(spdx: String?, url: String?, sha256: String?) throws(CatalogError) -> ReleaseLicense? {
        guard spdx != nil || url != nil || sha256 != nil else { return nil }
        return try CatalogError.catching { () throws(InvalidInput) in
            do throws(InvalidInput) { return try ReleaseLicense(spdx: spdx, url: url, sha256: sha256) } catch {
                let field = error.parameter.hasPrefix("license.") ? "license_" + error.parameter.dropFirst(8) : error.parameter
                throw InvalidInput(field, error.message)
            }
        }
    }
}
