/// A release (SPEC §3, plus `url`) or a /latest document (§4.1, a subset), as the server sends
/// it. Only `id` is required so that either shape decodes.
struct ReleaseDocument: Decodable {
    let id: String
    let seq: Int64?
    let url: String?
    let file: String?
    let ext: String?
    let sha256: String?
    let size: Int64?
    let sdkMin: String?
    let sdkMax: String?
    let channel: String?
    let rolloutPercent: Int?
    let state: String?
    let label: String?
    let contentType: String?
    let publishedAt: String?
    let retiredAt: String?
    let fileDeletedAt: String?
    /// The catalog version the answer describes (SPEC §12); absent from /latest documents.
    let catalogVersion: Int64?
    /// A challenger's guard (SPEC §11.1), summarised on one line.
    let `guard`: GuardSummary?
    /// The variant a /latest document answers with (SPEC §3.1).
    let variant: String?
    let variants: [VariantDocument]?

    /// JSON names and values in a fixed reading order; absent and empty fields are left out.
    var fields: [(String, String)] {
        let all: [(String, String?)] = [
            ("id", id), ("seq", seq.map(String.init)), ("url", url), ("file", file), ("ext", ext),
            ("sha256", sha256), ("size", size.map { "\($0) (\($0.byteCountText))" }),
            ("sdk_min", sdkMin), ("sdk_max", sdkMax), ("channel", channel),
            ("rollout_percent", rolloutPercent.map(String.init)), ("state", state), ("label", label),
            ("content_type", contentType), ("published_at", publishedAt), ("retired_at", retiredAt),
            ("file_deleted_at", fileDeletedAt), ("catalog_version", catalogVersion.map(String.init)),
            ("variant", variant), ("guard", `guard`?.text),
        ] + (variants ?? []).map { ("variant " + $0.name, $0.summary) }
        return all.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }

    /// `2.3..<3.0`, or `2.3+` when open-ended.
    var sdkRange: String {
        guard let sdkMin else { return "" }
        return sdkMax.map { "\(sdkMin)..<\($0)" } ?? "\(sdkMin)+"
    }
}

/// The parts of a release's `guard` an operator reads first: the metric, the plan, where it is.
struct GuardSummary: Decodable {
    struct Metric: Decodable {
        let name: String
        let outcome: String?
        let kind: String?
        let direction: String?
    }

    let metric: Metric
    let stages: [Int]?
    let goal: String?
    let status: String?
    let stageStartedAt: String?

    /// `collecting, rate upsell_prompt=purchased higher_is_better, stages 1,5,10,25,50, goal guard, stage since …`
    var text: String {
        let what = metric.outcome.map { "\(metric.name)=\($0)" } ?? metric.name
        let parts: [String?] = [
            status, [metric.kind, what, metric.direction].compactMap { $0 }.joined(separator: " "),
            stages.map { "stages " + $0.map(String.init).joined(separator: ",") }, goal.map { "goal " + $0 },
            stageStartedAt.map { "stage since " + $0 },
        ]
        return parts.compactMap { $0 }.joined(separator: ", ")
    }
}

/// One entry of a release's `variants` (SPEC §3.1), shown by `modelctl show` as one line.
struct VariantDocument: Decodable {
    struct Requires: Decodable {
        let platform: [String]?
        let minOs: String?
        let minRamMb: Int?
        let devicePrefix: [String]?
    }

    let name: String
    let file: String
    let size: Int64
    let requires: Requires
    let removedAt: String?
    let fileDeletedAt: String?

    /// `<file> <size> requires k=v,…` in the `--requires` syntax, then its removal state.
    var summary: String {
        let r = requires
        let conditions = [
            r.platform.map { "platform=" + $0.joined(separator: "|") }, r.minOs.map { "min_os=" + $0 },
            r.minRamMb.map { "min_ram_mb=\($0)" }, r.devicePrefix.map { "device_prefix=" + $0.joined(separator: "|") },
        ].compactMap { $0 }
        var text = "\(file) \(size.byteCountText) requires " + (conditions.isEmpty ? "nothing" : conditions.joined(separator: ","))
        if let removedAt { text += " (removed \(removedAt))" }
        if let fileDeletedAt { text += " (file deleted \(fileDeletedAt))" }
        return text
    }
}
