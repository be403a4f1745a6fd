import ArgumentParser
import JSONSupport
import TensorPackFiles

/// `modelctl pack FILE [--json]` (SPEC §16): what byte-plane coding makes of a file, without
/// publishing; `--output` keeps the pack.
struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack", abstract: "Show how small FILE packs (MDPACK1 byte planes).",
        discussion: "Blocks of 1 MiB, each split into byte or bit planes of the width that codes smallest (4 for float32 "
            + "weights, 2 for float16) and deflated; a block that does not shrink is stored.")

    @Argument(help: "The model file.") var file: String
    @Option(help: "Write the packed file here.") var output: String?
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing { try printSummary(PackFiles.code(file, to: output), json: json) }
    }
}

/// `modelctl patch OLD NEW [--json]` (SPEC §16): the patch that rebuilds NEW from OLD (their
/// XOR, coded as a pack is), without publishing; `--output` keeps it.
struct PatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch", abstract: "Show how small a patch from OLD to NEW is (MDPACK1 of their XOR).",
        discussion: "NEW XOR OLD over their common length, the rest of NEW verbatim, coded like a pack. A retrain or "
            + "fine-tune leaves the high bits of most weights unchanged: the XOR is mostly zero bits.")

    @Argument(help: "The installed file the patch applies to.") var old: String
    @Argument(help: "The new file.") var new: String
    @Option(help: "Write the patch here.") var output: String?
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing { try printSummary(PackFiles.code(new, base: old, to: output), json: json) }
    }
}

/// `modelctl unpack FILE --output OUT [--base OLD]`: decodes a pack, or applies a patch to its
/// base, checking every block and the whole file as the client does.
struct UnpackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack", abstract: "Decode a packed file, or apply a patch to its base.")

    @Argument(help: "The packed file or patch.") var file: String
    @Option(help: "The decoded file to write.") var output: String
    @Option(help: "The file a patch applies to.") var base: String?

    func run() throws {
        try failing {
            let size = try PackFiles.decode(file, base: base, to: output)
            print("\(output): \(size) bytes (\(size.byteCountText)), every block and the whole file checked")
        }
    }
}

/// `{"size":…,"coded":…,"ratio":…,"width":w}` (SPEC §16), or the same as text. The ratio has
/// four decimals; an empty file has none (null).
private func printSummary(_ run: @autoclosure () throws(PackFileError) -> PackFiles.Summary, json: Bool) throws(CLIFailure) {
    let summary: PackFiles.Summary
    do throws(PackFileError) { summary = try run() } catch { throw CLIFailure(error.description) }
    let ratio = summary.size == 0 ? nil : (Double(summary.coded) / Double(summary.size) * 10_000).rounded() / 10_000
    if json {
        var w = JSONWriter()
        w.beginObject()
        w.field("size", summary.size)
        w.field("coded", summary.coded)
        w.key("ratio")
        if let ratio { w.raw(Array("\(ratio)".utf8)) } else { w.null() }
        w.field("width", summary.width)
        w.endObject()
        print(w.string)
    } else {
        print("size:  \(summary.size) bytes (\(summary.size.byteCountText))")
        print("coded: \(summary.coded) bytes (\(summary.coded.byteCountText)), ratio \(ratio.map { "\($0)" } ?? "-"), width \(summary.width)")
    }
}
