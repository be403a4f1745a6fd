import Foundation
import JSONSupport

/// Prints server documents: the server's JSON verbatim with `--json`, else text for people.
struct ReleaseOutput {
    let json: Bool

    /// One release or /latest document as aligned `key: value` lines.
    func printRelease(_ body: [UInt8]) throws(CLIFailure) {
        if json { return printJSON(body) }
        let fields = try decode(ReleaseDocument.self, body).fields
        let width = (fields.map(\.0.count).max() ?? 0) + 1
        for (name, value) in fields { print((name + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0) + Self.oneLine(value)) }
    }

    /// `{"releases":[…]}` as a table, one release per row. Read with JSONSupport's reader and
    /// padded without Foundation: 10,000 releases through JSONDecoder's snake-case conversion and
    /// `padding(toLength:)` took over 300 ms (SPEC §17.1's list view budget).
    func printList(_ body: [UInt8]) throws(CLIFailure) {
        if json { return printJSON(body) }
        guard let root = try? JSONReader.parse(body), case .array(let releases)? = root["releases"]?.value else {
            throw CLIFailure("unexpected response from server: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        func text(_ r: JSONNode, _ key: String) -> String? {
            guard let v = r[key] else { return nil }
            switch v.value {
            case .string(let s): return s
            case .number: return v.literal(in: body)
            default: return nil
            }
        }
        let rows = [["ID", "SEQ", "CHANNEL", "SDK", "ROLLOUT", "STATE", "LABEL", "SIZE"]] + releases.map { r in
            let sdk = text(r, "sdk_min").map { min in text(r, "sdk_max").map { "\(min)..<\($0)" } ?? "\(min)+" } ?? ""
            return [text(r, "id") ?? "", text(r, "seq") ?? "", text(r, "channel") ?? "", sdk, text(r, "rollout_percent").map { "\($0)%" } ?? "",
                    text(r, "state") ?? "", Self.truncated(Self.oneLine(text(r, "label") ?? ""), to: 24),
                    text(r, "size").flatMap(Int64.init)?.byteCountText ?? ""]
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = ""
        for row in rows {
            var line = ""
            for (cell, width) in zip(row, widths) {
                if !line.isEmpty { line += "  " }
                line += cell
                line += String(repeating: " ", count: max(0, width - cell.count))
            }
            while line.last == " " { line.removeLast() }
            out += line + "\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// A server document verbatim, one line.
    func printJSON(_ body: [UInt8]) {
        var bytes = body
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        FileHandle.standardOutput.write(Data(bytes))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(CLIFailure) -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do { return try decoder.decode(type, from: Data(body)) } catch {
            throw CLIFailure("unexpected response from server: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
    }

    /// Labels are free text: control characters would break a line-oriented display.
    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }

    private static func truncated(_ text: String, to length: Int) -> String {
        text.count <= length ? text : text.prefix(length - 1) + "…"
    }
}
