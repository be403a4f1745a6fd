import Foundation

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

    /// `{"releases":[…]}` as a table, one release per row.
    func printList(_ body: [UInt8]) throws(CLIFailure) {
        if json { return printJSON(body) }
        struct List: Decodable { let releases: [ReleaseDocument] }
        let releases = try decode(List.self, body).releases
        let rows = [["ID", "SEQ", "CHANNEL", "SDK", "ROLLOUT", "STATE", "LABEL", "SIZE"]] + releases.map { r in
            [r.id, r.seq.map(String.init) ?? "", r.channel ?? "", r.sdkRange, r.rolloutPercent.map { "\($0)%" } ?? "",
             r.state ?? "", Self.truncated(Self.oneLine(r.label ?? ""), to: 24), r.size?.byteCountText ?? ""]
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
            print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
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
