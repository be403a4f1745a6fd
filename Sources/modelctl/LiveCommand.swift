import ArgumentParser
import Foundation

/// `modelctl live [--channel C] [--json]` (SPEC §15.1): what each channel answers now, per SDK
/// range, from `GET /admin/live` — computed by the server with the selection code of /latest.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "Show what is live: the share of installs each release answers, per channel and SDK range.")
    @Option(help: "Only this channel.") var channel: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let channel { try AdminValidation.channel(channel) }
    }

    func run() throws {
        try failing {
            let body = try global.adminClient().send(HTTPClientRequest(path: "/admin/live", query: [("channel", channel)])).expect(200).body
            if global.json { return ReleaseOutput(json: true).printJSON(body) }
            guard let live = try? JSONDecoder().decode(LiveDocument.self, from: Data(body)) else {
                throw CLIFailure("unexpected response from server: \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            print(live.text, terminator: "")
        }
    }
}

/// The §15.1 document, and the text people read.
struct LiveDocument: Decodable {
    struct Range: Decodable {
        struct Serving: Decodable { let id: String; let label: String; let share: Double; let variants: [String] }
        let sdkMin: String
        let sdkMax: String?
        let serving: [Serving]
        let shadowed: [String]

        enum CodingKeys: String, CodingKey { case sdkMin = "sdk_min", sdkMax = "sdk_max", serving, shadowed }
    }

    let channels: [String: [Range]]

    /// Per channel, per range: one line per serving release (share, id, label, variants), the
    /// part that gets no model, and the releases that answer nobody.
    var text: String {
        var out = ""
        for name in channels.keys.sorted() {
            out += "channel \(name)\n"
            let ranges = channels[name]!
            if ranges.isEmpty { out += "  no release\n" }
            for range in ranges {
                out += "  sdk ≥ \(range.sdkMin)" + (range.sdkMax.map { ", < \($0)" } ?? "") + "\n"
                for s in range.serving {
                    let variants = s.variants.isEmpty ? "" : "  variants: " + s.variants.joined(separator: ", ")
                    out += "    \(Self.percent(s.share))  \(s.id)  \(ReleaseOutput.oneLine(s.label))\(variants)\n"
                }
                let rest = 1 - range.serving.reduce(0) { $0 + $1.share }
                if rest > 0.000_001 { out += "    \(Self.percent(rest))  no model\n" }
                if !range.shadowed.isEmpty { out += "    answers nobody: " + range.shadowed.joined(separator: ", ") + "\n" }
            }
        }
        return out
    }

    static func percent(_ share: Double) -> String {
        let text = String(format: "%.1f%%", share * 100)
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
