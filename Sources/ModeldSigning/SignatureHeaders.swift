#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Modeld-Signature-Params: v=1, catalog=N, created=T, expires=T2` (an RFC 8941 Dictionary of
/// integers). Together with the body it gives back the signature base.
public struct SignatureParams: Sendable, Equatable {
    public static let headerName = "Modeld-Signature-Params"
    public static let version: Int64 = 1

    public var catalog: Int64
    public var created: Int64
    public var expires: Int64

    public init(catalog: Int64, created: Int64, expires: Int64) {
        self.catalog = catalog
        self.created = created
        self.expires = expires
    }

    public var headerValue: String {
        "v=\(Self.version), catalog=\(catalog), created=\(created), expires=\(expires)"
    }

    public func base(kind: SignatureBase.Kind, body: [UInt8]) -> SignatureBase {
        SignatureBase(kind: kind, catalog: catalog, created: created, expires: expires, body: body)
    }

    /// Unknown members are ignored (RFC 8941 extensibility); `v` must be 1 and the three others
    /// present as integers.
    public static func parse(_ value: String) -> SignatureParams? {
        var members: [String: Int64] = [:]
        for member in value.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = member.trimmingOWS()
            guard let eq = trimmed.firstIndex(of: "=") else {
                // A bare key is the boolean true (RFC 8941): fine for an unknown member only.
                guard SFParser.isKey(String(trimmed)), !["v", "catalog", "created", "expires"].contains(String(trimmed)) else { return nil }
                continue
            }
            let key = String(trimmed[..<eq])
            guard SFParser.isKey(key) else { return nil }
            // Non-integer members of unknown keys are tolerated; a known key must be an integer.
            let number = SFParser.integer(trimmed[trimmed.index(after: eq)...])
            if ["v", "catalog", "created", "expires"].contains(key) && number == nil { return nil }
            if let number { members[key] = number }
        }
        guard members["v"] == version, let catalog = members["catalog"], let created = members["created"],
              let expires = members["expires"] else { return nil }
        return SignatureParams(catalog: catalog, created: created, expires: expires)
    }
}

/// One signature and the keyid it claims.
public struct Signature: Sendable, Equatable {
    public var keyID: String
    public var bytes: [UInt8]

    public init(keyID: String, bytes: [UInt8]) {
        self.keyID = keyID
        self.bytes = bytes
    }

    /// Standard base64 with padding, as in the header and the pointer.
    public var base64: String { Data(bytes).base64EncodedString() }
}

/// `Modeld-Signature: :<b64>:;keyid="<16 hex>", :<b64>:;keyid="…"` (an RFC 8941 List of Byte
/// Sequences with a `keyid` String parameter).
public enum SignatureList {
    public static let headerName = "Modeld-Signature"

    public static func headerValue(_ signatures: [Signature]) -> String {
        signatures.map { ":\($0.base64):;keyid=\"\($0.keyID)\"" }.joined(separator: ", ")
    }

    /// nil when the value is not a List of byte sequences each with a valid `keyid`.
    public static func parse(_ value: String) -> [Signature]? {
        var p = SFParser(value)
        var out: [Signature] = []
        p.skipOWS()
        if p.atEnd { return nil }
        while true {
            guard let bytes = p.byteSequence() else { return nil }
            var keyID: String?
            while p.consume(";") {
                p.skipSP()
                guard let key = p.key() else { return nil }
                if !p.consume("=") {
                    if key == "keyid" { return nil }   // a bare parameter is boolean true; keyid must be a string
                    continue
                }
                if p.peek == UInt8(ascii: "\"") {
                    guard let s = p.string() else { return nil }
                    if key == "keyid" { keyID = s }
                } else if p.bareItemToken() == nil {
                    return nil
                }
            }
            guard let keyID, KeyID.isValid(keyID) else { return nil }
            out.append(Signature(keyID: keyID, bytes: bytes))
            p.skipOWS()
            if p.atEnd { return out }
            guard p.consume(",") else { return nil }
            p.skipOWS()
            if p.atEnd { return nil }   // a trailing comma is invalid (RFC 8941 §4.2.1)
        }
    }
}

/// The few RFC 8941 productions these headers use.
struct SFParser {
    private let bytes: [UInt8]
    private var i = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { i == bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func consume(_ c: Character) -> Bool {
        guard let b = peek, b == c.asciiValue else { return false }
        i += 1
        return true
    }

    mutating func skipOWS() { while let b = peek, b == 0x20 || b == 0x09 { i += 1 } }
    mutating func skipSP() { while peek == 0x20 { i += 1 } }

    /// `:` base64 `:`
    mutating func byteSequence() -> [UInt8]? {
        guard consume(":") else { return nil }
        let start = i
        while let b = peek, b != UInt8(ascii: ":") { i += 1 }
        guard consume(":") else { return nil }
        let text = String(decoding: bytes[start..<(i - 1)], as: UTF8.self)
        return Data(base64Encoded: text).map { Array($0) }
    }

    /// key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
    mutating func key() -> String? {
        let start = i
        while let b = peek, Self.isKeyByte(b, first: i == start) { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    /// DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE
    mutating func string() -> String? {
        guard consume("\"") else { return nil }
        var out: [UInt8] = []
        while let b = peek {
            i += 1
            switch b {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let n = peek, n == UInt8(ascii: "\"") || n == UInt8(ascii: "\\") else { return nil }
                out.append(n)
                i += 1
            case 0x20...0x7e: out.append(b)
            default: return nil
            }
        }
        return nil
    }

    /// Any other bare item of an unknown parameter (integer, token, boolean): skipped.
    mutating func bareItemToken() -> String? {
        let start = i
        while let b = peek, b > 0x20, b < 0x7f, b != UInt8(ascii: ","), b != UInt8(ascii: ";") { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    static func isKeyByte(_ b: UInt8, first: Bool) -> Bool {
        let lower = (0x61...0x7a).contains(b) || b == UInt8(ascii: "*")
        if first { return lower }
        return lower || (0x30...0x39).contains(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    static func isKey(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return !u.isEmpty && u.enumerated().allSatisfy { isKeyByte($0.element, first: $0.offset == 0) }
    }

    /// sf-integer: optional "-", 1–15 digits.
    static func integer(_ s: Substring) -> Int64? {
        let digits = s.hasPrefix("-") ? s.dropFirst() : s
        guard (1...15).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(s)
    }
}

extension Substring {
    func trimmingOWS() -> Substring {
        let ows: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var s = self
        while let f = s.first, ows(f) { s = s.dropFirst() }
        while let l = s.last, ows(l) { s = s.dropLast() }
        return s
    }
}
