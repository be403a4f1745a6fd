import Testing
@testable import EgressCost

struct SizeParserTests {
    @Test("SIZE units (SPEC §7.2)", arguments: [
        ("1MB", 1_000_000), ("1MiB", 1_048_576), ("5GB", 5_000_000_000), ("512KiB", 524_288),
        ("2TB", 2_000_000_000_000), ("1048576", 1_048_576), ("0", 0), ("1mb", 1_000_000), ("1mib", 1_048_576),
        ("1 GiB", 1_073_741_824), ("1.5GB", 1_500_000_000), ("7B", 7), ("1kb", 1000), ("1TiB", 1 << 40),
        ("1PB", 1_000_000_000_000_000), (" 3MB ", 3_000_000),
    ] as [(String, Int64)])
    func size_parses_SPEC7_2(_ text: String, _ bytes: Int64) throws {
        #expect(try SizeParser.parse(text) == bytes)
    }

    @Test("bad SIZE is a clear error", arguments: [
        ("", "empty"), ("MB", "must start with a number"), ("-1MB", "must not be negative"),
        ("1XB", "unknown unit 'XB'"), ("1 M B", "unknown unit"), ("1.5B", "not a whole number of bytes"),
        ("99999999999PB", "too large"), ("1..5MB", "is not a number"), ("1Mb/s", "unknown unit"),
    ])
    func size_rejects(_ text: String, _ reason: String) {
        #expect {
            try SizeParser.parse(text)
        } throws: { error in
            (error as? SizeError).map { $0.description.contains(reason) && $0.description.contains("invalid size") } ?? false
        }
    }
}
