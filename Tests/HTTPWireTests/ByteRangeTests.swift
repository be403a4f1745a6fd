import Testing
@testable import HTTPWire

/// http-edge-cases.md §3 (Go ParseRangeTests) with SPEC §4.3's settlements, at the resolution level.
@Suite struct ByteRangeTests {
    static func r(_ start: Int64, _ length: Int64) -> ByteRange { ByteRange(start: start, length: length) }

    struct Valid: Sendable, CustomTestStringConvertible {
        var header: String
        var size: Int64
        var ranges: [ByteRange]
        var testDescription: String { "\(header) on \(size)" }
    }

    static let valid: [Valid] = [
        Valid(header: "bytes=0-9", size: 10, ranges: [r(0, 10)]),
        Valid(header: "bytes=0-", size: 10, ranges: [r(0, 10)]),
        Valid(header: "bytes=5-", size: 10, ranges: [r(5, 5)]),
        Valid(header: "bytes=0-20", size: 10, ranges: [r(0, 10)]),
        Valid(header: "bytes=-5", size: 10, ranges: [r(5, 5)]),
        Valid(header: "bytes=-15", size: 10, ranges: [r(0, 10)]),
        Valid(header: "bytes=1-2,5-", size: 10, ranges: [r(1, 2), r(5, 5)]),
        // Go's `-2 , 7-` overlaps ({9,2},{7,4}), so SPEC serves it whole (below); order kept here:
        Valid(header: "bytes=-2 , 3- 4", size: 11, ranges: [r(9, 2), r(3, 2)]),
        Valid(header: "bytes=0-0 ,2-2, 7-", size: 11, ranges: [r(0, 1), r(2, 1), r(7, 4)]),
        Valid(header: "bytes=0-0,-1", size: 10000, ranges: [r(0, 1), r(9999, 1)]),
        Valid(header: "bytes=500-600,601-999", size: 10000, ranges: [r(500, 101), r(601, 399)]),
        Valid(header: "bytes=   1 -2   ,  4- 5, 7 - 8 , ,,", size: 11, ranges: [r(1, 2), r(4, 2), r(7, 2)]),
        Valid(header: "bytes=15-,0-5", size: 10, ranges: [r(0, 6)]),
        Valid(header: "BYTES=0-1", size: 10, ranges: [r(0, 2)]),
        Valid(header: "Bytes=\t0-1\t", size: 10, ranges: [r(0, 2)]),
        Valid(header: "bytes=10-11", size: 11, ranges: [r(10, 1)]),
        Valid(header: "bytes=0-9223372036854775807", size: 10, ranges: [r(0, 10)]),
    ]

    @Test(arguments: valid)
    func validSets_resolveInOrderSent_SPEC4_3(_ row: Valid) {
        #expect(ByteRangeSet.resolve(header: row.header, size: row.size) == .ranges(row.ranges))
    }

    @Test(arguments: [
        "bytes=7", "bytes= 7 ", "bytes=5-4", "bytes=0-2,5-4", "bytes=2-5,4-3", "bytes=--5,4--3", "bytes=A-",
        "bytes=A- ", "bytes=A-Z", "bytes= -Z", "bytes=5-Z", "bytes=Ran-dom, garbage", "bytes=0x01-0x02",
        "bytes=+1-2", "bytes=1 2-3", "bytes=0-1;x",
        // Empty sets: SPEC §4.3 lists them as malformed (Go: 200).
        "bytes=", "bytes=         ", "bytes= , , ,   ",
        // Suffix edge cases (Go TestServeFileRejectsInvalidSuffixLengths); -0 is 416 per SPEC (Go: 206 empty).
        "bytes=--6", "bytes=--0", "bytes=---0", "bytes=-6-", "bytes=-0", "bytes=0-1,-0",
        // Int64 overflow.
        "bytes=9223372036854775808-", "bytes=0-9223372036854775808", "bytes=-99999999999999999999",
    ])
    func malformedSets_are416_SPEC4_3(_ header: String) {
        #expect(ByteRangeSet.resolve(header: header, size: 22) == .malformed)
    }

    @Test(arguments: ["bytes=11-", "bytes=11-12", "bytes=12-12", "bytes=11-100", "bytes=12-100", "bytes=100-", "bytes=100-1000",
                      "bytes=11-,20-30", "bytes=9223372036854775807-"])
    func noSatisfiableRange_is416_GoServeFileRangeTests(_ header: String) {
        #expect(ByteRangeSet.resolve(header: header, size: 11) == .unsatisfiable)
    }

    @Test(arguments: ["foo", "", "items=0-5", "bytes 0-5", "bytes =0-5", "=0-5", "bytess=0-5"])
    func otherUnitOrNoEquals_isIgnored_SPEC4_3(_ header: String) {
        #expect(ByteRangeSet.resolve(header: header, size: 11) == .whole)
    }

    @Test func absentHeader_isWhole() {
        #expect(ByteRangeSet.resolve(header: nil, size: 11) == .whole)
    }

    @Test(arguments: ["bytes=0-128", "bytes=1-", "bytes=-5", "bytes=5-4", "bytes="])
    func emptyFile_withAnyRange_is200_SPEC4_3(_ header: String) {
        #expect(ByteRangeSet.resolve(header: header, size: 0) == .whole)
    }

    @Test(arguments: [("bytes=0-,1-,2-,3-,4-", 11), ("bytes=500-700,601-999", 10000), ("bytes=-2 , 7-", 11),
                      ("bytes=0-5,5-6", 11), ("bytes=-3,8-8", 11), ("bytes=0-0,0-0", 11), ("bytes=0-,-1", 11)] as [(String, Int64)])
    func overlappingOrWastefulSets_are200Whole_SPEC4_3(_ header: String, _ size: Int64) {
        #expect(ByteRangeSet.resolve(header: header, size: size) == .whole)
    }

    @Test func moreThan16Ranges_is200Whole_SPEC4_3() {
        let sixteen = (0..<16).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ",")
        let seventeen = (0..<17).map { "\($0 * 2)-\($0 * 2)" }.joined(separator: ",")
        #expect(ByteRangeSet.resolve(header: "bytes=" + sixteen, size: 100) == .ranges((0..<16).map { Self.r(Int64($0) * 2, 1) }))
        #expect(ByteRangeSet.resolve(header: "bytes=" + seventeen, size: 100) == .whole)
    }

    // 4 GiB + 1 MiB: offsets past Int32 and UInt32 must survive parsing, clamping and formatting.
    static let big: Int64 = 4 * 1024 * 1024 * 1024 + 1024 * 1024

    @Test func sixtyFourBitSizes_rangesAcross2GiBAnd4GiB_SPEC4_3() {
        #expect(ByteRangeSet.resolve(header: "bytes=2147483647-2147483648", size: Self.big) == .ranges([Self.r(2_147_483_647, 2)]))
        #expect(ByteRangeSet.resolve(header: "bytes=4294967295-4294967296", size: Self.big) == .ranges([Self.r(4_294_967_295, 2)]))
        #expect(ByteRangeSet.resolve(header: "bytes=4294967296-", size: Self.big) == .ranges([Self.r(4_294_967_296, 1_048_576)]))
        #expect(ByteRangeSet.resolve(header: "bytes=-1048577", size: Self.big) == .ranges([Self.r(4_294_967_295, 1_048_577)]))
        #expect(ByteRangeSet.resolve(header: "bytes=0-99999999999", size: Self.big) == .ranges([Self.r(0, Self.big)]))
        #expect(ByteRangeSet.resolve(header: "bytes=\(Self.big)-", size: Self.big) == .unsatisfiable)
        #expect(Self.r(4_294_967_295, 1_048_577).contentRange(size: Self.big) == "bytes 4294967295-4296015871/4296015872")
    }

    @Test func parse_keepsSpecsAsSent() {
        #expect(ByteRangeSet.parse("bytes=5-, -3, 1-2") == .set(ByteRangeSet(specs: [.from(5, through: nil), .suffix(3), .from(1, through: 2)])))
        #expect(ByteRangeSet.parse("pages=1-2") == .otherUnit)
        #expect(ByteRangeSet.parse("bytes=x-") == .malformed)
    }
}
