@testable import JSONSupport
import Testing

/// `JSONTape` against the full reader over the members table's texts: the same failure where
/// `parse` fails, and where it succeeds the same tree — kinds, byte ranges, keys in order,
/// strings (escapes decoded), whole numbers — read through the tape's lookups.
struct JSONTapeTests {
    @Test(arguments: (JSONMembersTests.lines.map { Array($0.utf8) } + JSONMembersTests.badBytes).map(JSONMembersTests.Line.init))
    func tape_sameTreeAndFailuresAsTheFullReader(_ line: JSONMembersTests.Line) {
        let line = line.bytes
        let full = Result(catching: { () throws(JSONReader.Failure) in try JSONReader.parse(line) })
        let tape = Result(catching: { () throws(JSONReader.Failure) in try JSONTape(line) })
        switch (full, tape) {
        case (.success(let root), .success(let tape)):
            #expect(Self.text(root, line) == Self.text(tape, tape.root))
        case (.failure(let f), .failure(let g)):
            #expect(f == g)
        case (.success, .failure(let g)):
            Issue.record("rejected what the full reader accepts (\(g))")
        case (.failure(let f), .success):
            Issue.record("accepted what the full reader rejects (\(f))")
        }
    }

    @Test func lookups_absentMembersWrongKindsAndIntegers() throws {
        let tape = try JSONTape(Array(#"{"n":-9223372036854775808,"big":9223372036854775808,"f":1.0,"e":1e3,"a":[1,"x"],"s":"t","z":null}"#.utf8))
        let root = tape.root
        #expect(tape.member(root, "n").flatMap(tape.integer) == Int64.min)
        #expect(tape.member(root, "big").flatMap(tape.integer) == nil, "beyond Int64")
        #expect(tape.member(root, "f").flatMap(tape.integer) == nil && tape.member(root, "e").flatMap(tape.integer) == nil)
        #expect(tape.member(root, "absent") == nil)
        let a = try #require(tape.member(root, "a"))
        #expect(tape.elements(a)?.map { tape.kind($0) } == [.number, .string])
        #expect(tape.member(a, "s") == nil, "an array has no members")
        #expect(tape.elements(root) == nil && tape.string(root) == nil && tape.integer(a) == nil)
        #expect(tape.member(root, "z").map { tape.kind($0) } == .null)
        #expect(tape.keys(root) == ["n", "big", "f", "e", "a", "s", "z"])
    }

    /// Word-at-a-time comparison: every length around the 8-byte steps, a difference at every
    /// position, a length off by one.
    @Test func textEquals_everyLengthAndEveryDifferingByte() throws {
        for n in 0...19 {
            let text = "\"" + String((0..<n).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) }) + "\""
            let tape = try JSONTape(Array(("[1," + text + "]").utf8))
            let value = try #require(tape.elements(tape.root)?.last)
            #expect(tape.text(of: value, equals: Array(text.utf8)))
            #expect(!tape.text(of: value, equals: Array(text.utf8) + [0x20]) && !tape.text(of: value, equals: Array(text.utf8.dropLast())))
            for i in 0..<text.utf8.count {
                var other = Array(text.utf8)
                other[i] ^= 0x01
                #expect(!tape.text(of: value, equals: other), "length \(n), byte \(i)")
            }
        }
    }

    /// The full reader's node as text: kind, range and contents, numbers by their literal.
    static func text(_ node: JSONNode, _ bytes: [UInt8]) -> String {
        let r = "\(node.range)"
        switch node.value {
        case .null: return "null" + r
        case .bool(let b): return "\(b)" + r
        case .number: return "n(\(node.literal(in: bytes)),\(node.integer(in: bytes).map(String.init) ?? "-"))" + r
        case .string(let s): return "s(\(s.debugDescription))" + r
        case .array(let e): return "[" + e.map { text($0, bytes) }.joined(separator: ",") + "]" + r
        case .object(let m): return "{" + m.map { "\($0.key.debugDescription):" + text($0.node, bytes) }.joined(separator: ",") + "}" + r
        }
    }

    static func text(_ tape: JSONTape, _ v: Int) -> String {
        let r = "\(tape.range(v))"
        switch tape.kind(v) {
        case .null: return "null" + r
        case .bool: return "\(tape.bytes[tape.range(v).lowerBound] == UInt8(ascii: "t"))" + r
        case .number:
            return "n(\(String(decoding: tape.bytes[tape.range(v)], as: UTF8.self)),\(tape.integer(v).map(String.init) ?? "-"))" + r
        case .string: return "s(\(tape.string(v)!.debugDescription))" + r
        case .array: return "[" + tape.elements(v)!.map { text(tape, $0) }.joined(separator: ",") + "]" + r
        case .object:
            return "{" + tape.keys(v).map { "\($0.debugDescription):" + text(tape, tape.member(v, $0)!) }.joined(separator: ",") + "}" + r
        }
    }
}
