/// Comparison of secrets (tokens, token hashes, CSRF tokens) that reads every byte whatever the
/// first difference, so the time taken tells a guesser nothing but the length.
public enum ConstantTime {
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
