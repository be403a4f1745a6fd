/// `MAJOR[.MINOR[.PATCH]]`, each 0–999999, missing components 0 (SPEC §3).
/// Compares numerically (`2.10 > 2.9`); `description` is the normalised `M.m.p`.
public struct SDKVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public static let maxComponent = 999_999

    public init?(major: Int, minor: Int = 0, patch: Int = 0) {
        for c in [major, minor, patch] where c < 0 || c > Self.maxComponent { return nil }
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Strict: ASCII digits and dots only, 1–3 components, none empty, each ≤ 6 digits
    /// (so no overflow and no `+1`, ` 1`, `1.`, `.1`, `1..2`, `1.2.3.4`).
    /// Inlinable (with `withUTF8Bytes`), so a caller in another module runs it specialised for its
    /// string type: unspecialised, every update check's `sdk` went through the generic entry
    /// point and StringProtocol's witnesses (~1 % of a /latest profile).
    @inlinable
    public init?(_ text: some StringProtocol) {
        guard let v = text.withUTF8Bytes(Self.parse) else { return nil }
        self = v
    }

    @usableFromInline
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SDKVersion? {
        // Plain locals, not an array: parsed on every update check (sdk, os).
        var done = (0, 0)
        var current = 0
        var index = 0
        var digits = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if digits == 0 || index == 2 { return nil }
                if index == 0 { done.0 = current } else { done.1 = current }
                index += 1
                digits = 0
                current = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
                if digits > 6 { return nil }
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
            } else {
                return nil
            }
        }
        if digits == 0 { return nil }
        switch index {
        case 0: return SDKVersion(checked: current, 0, 0)
        case 1: return SDKVersion(checked: done.0, current, 0)
        default: return SDKVersion(checked: done.0, done.1, current)
        }
    }

    /// Components already known to be in range (at most six digits each).
    private init(checked major: Int, _ minor: Int, _ patch: Int) {
        (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    public static func < (a: SDKVersion, b: SDKVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}
