import Testing
@testable import HTTPWire

@Suite struct ASCIITests {
    /// The masks are RFC 9110 §5.6.2's tchar, bit for bit.
    @Test func isToken_isExactlyTchar() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for b in 0...255 { #expect(ASCII.isToken(UInt8(b)) == tchar.contains(UInt8(b)), "byte \(b)") }
    }

    /// The word-at-a-time check agrees with the byte rule for every byte value at every position
    /// of the word part and the tail (lengths 1–17 cover two words plus a tail).
    @Test func allTargetBytes_agreesWithTheByteRule_everywhere() {
        for length in 1...17 {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    let fast = bytes.withUnsafeBytes { ASCII.allTargetBytes($0) }
                    if fast != ASCII.isTargetByte(UInt8(value)) {
                        Issue.record("byte \(value) at \(position) of \(length): \(fast)")
                        return
                    }
                }
            }
        }
        #expect([UInt8]().withUnsafeBytes { ASCII.allTargetBytes($0) })
    }
}
