import ArgumentParser

/// `modelctl publish FILE --sdk-min V …` (SPEC §7.1).
struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a model file as a new release.",
        discussion: "The file is streamed once (chunked) with its SHA-256 as the trailer X-Model-SHA256. "
            + "The release's ext is everything after the first dot of the file name. "
            + "With --models-dir it is published into that directory without a server, "
            + "through the server's own publish path (same lock, same atomic writes).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The model file.") var file: String
    @Option(help: "Lowest SDK version served (inclusive), e.g. 2.3.") var sdkMin: String
    @Option(help: "SDK version no longer served (exclusive).") var sdkMax: String?
    @Option(help: "Release channel (server default: stable).") var channel: String?
    @Option(help: "Rollout percentage 0-100 (server default: 100).") var rollout: Int?
    @Option(help: "Free-text label, at most 200 characters.") var label: String?
    @Option(help: "Content-Type the file is served with (default from the extension); types browsers render or run (text/html, SVG, XML, JavaScript, …) are refused.") var contentType: String?
    @Option(help: "Keep this existing release UUID (imports keep their URLs).") var id: String?
    @OptionGroup(title: "Guard (SPEC §11: a challenger ramped and judged by the server)") var guardOptions: GuardOptions
    @OptionGroup(title: "Adapters and pre-download metadata (SPEC §3.2)") var adapter: AdapterOptions
    @OptionGroup var offline: OfflineOptions

    func validate() throws {
        try AdminValidation.sdkRange(min: sdkMin, max: sdkMax)
        if let channel { try AdminValidation.publishChannel(channel) }
        if let rollout { try AdminValidation.rollout(rollout, option: "--rollout") }
        if let label { try AdminValidation.label(label) }
        if let contentType { try AdminValidation.contentType(contentType) }
        if let id { try AdminValidation.releaseID(id, option: "--id") }
        _ = try AdminValidation.ext(ofFile: file)
        _ = try guardOptions.json()
    }

    func run() throws {
        try failing {
            let publisher = try publisher()
            let request = PublishArguments(
                file: file, ext: try AdminValidation.ext(ofFile: file), sdkMin: sdkMin, sdkMax: sdkMax,
                channel: channel, rolloutPercent: rollout, label: label, contentType: contentType, id: id,
                guardJSON: try guardOptions.json(), base: try adapter.base(lookUp: publisher.channelAndSHA256(ofRelease:)),
                displayName: adapter.displayName, licenseSPDX: adapter.licenseSpdx, licenseURL: adapter.licenseUrl,
                licenseSHA256: adapter.licenseSha256, minRAMMB: adapter.minRamMb)
            try ReleaseOutput(json: global.json).printRelease(try publisher.publish(request))
        }
    }

    /// `--models-dir` publishes through ModelCatalog; otherwise to the server.
    private func publisher() throws(CLIFailure) -> any Publisher {
        if let offline = try offline.publisher() { return offline }
        return try global.adminAPI()
    }
}
