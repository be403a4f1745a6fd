/// The release's field rules (SPEC §3), written once: the server refuses a publish with them,
/// `modelctl` checks its flags with them before sending a byte, and the client checks what it
/// decodes with them. Each failure names the field as the server's `invalid_parameter` does;
/// each caller words it for its own audience (a flag, an HTTP error, a verification failure).
public enum ReleaseFields {
    public static let maxLabelLength = 200
    public static let maxExtLength = 16

    /// RFC 9562 textual form 8-4-4-4-12 hex; either case (imported ids keep theirs, §7.1).
    public static func checkID(_ id: String, field: String = "id") throws(InvalidInput) {
        let valid = id.withUTF8Bytes { b in
            b.count == 36 && b.indices.allSatisfy { i in
                i == 8 || i == 13 || i == 18 || i == 23 ? b[i] == UInt8(ascii: "-") : isHexDigit(b[i])
            }
        }
        guard valid else { throw InvalidInput(field, "must be a UUID (8-4-4-4-12 hex digits)") }
    }

    /// `[a-z0-9]+(\.[a-z0-9]+)*`, at most 16 characters.
    public static func checkExt(_ ext: String) throws(InvalidInput) {
        let count = ext.utf8.count
        guard count > 0, count <= maxExtLength else { throw InvalidInput("ext", "must be 1–\(maxExtLength) characters") }
        let words = ext.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard words.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isLowerAlphanumeric) }) else {
            throw InvalidInput("ext", "must match [a-z0-9]+(\\.[a-z0-9]+)*")
        }
    }

    /// Everything after the first dot of a file name's last component, lowercased
    /// (`a.mlmodelc.zip` → `mlmodelc.zip`); nil when that is no valid `ext`.
    public static func ext(ofFileName name: String) -> String? {
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
        guard let dot = base.firstIndex(of: ".") else { return nil }
        let ext = String(base[base.index(after: dot)...]).lowercased()
        return (try? checkExt(ext)) != nil ? ext : nil
    }

    public static func checkChannel(_ channel: String) throws(InvalidInput) {
        guard NameRule.matches(channel) else { throw InvalidInput("channel", "must match [a-z0-9_-]{1,32}") }
    }

    /// Names a new release may not take: `index`'s pointer would be `rules/index.sig.json`,
    /// the rules index of SPEC §17.2 (docs/decisions/many-channels.md). Only publishing refuses
    /// it, so a catalog that already has such a channel still loads.
    public static let reservedChannels: Set<String> = ["index"]

    public static func checkPublishableChannel(_ channel: String) throws(InvalidInput) {
        try checkChannel(channel)
        guard !reservedChannels.contains(channel) else {
            throw InvalidInput("channel", "'\(channel)' is reserved: rules/\(channel).sig.json is the rules index (SPEC §17.2)")
        }
    }

    public static func checkRollout(_ percent: Int) throws(InvalidInput) {
        guard (0...100).contains(percent) else { throw InvalidInput("rollout_percent", "must be an integer 0–100") }
    }

    /// Counted in Unicode scalars (code points), like JSON Schema's maxLength and every other
    /// length in SPEC §4.2, not in grapheme clusters (which can hide any number of scalars);
    /// control characters are refused (a label is shown in terminals and pages).
    public static func checkLabel(_ label: String) throws(InvalidInput) {
        guard label.unicodeScalars.count <= maxLabelLength else { throw InvalidInput("label", "must be at most \(maxLabelLength) characters") }
        guard !label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw InvalidInput("label", "must not contain control characters")
        }
    }

    /// It becomes a response header: printable ASCII only, something/something.
    public static func checkContentType(_ type: String) throws(InvalidInput) {
        let valid = type.withUTF8Bytes { b in
            (3...127).contains(b.count) && b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && b.contains(UInt8(ascii: "/"))
        }
        guard valid else { throw InvalidInput("content_type", "must be a media type like application/octet-stream") }
    }

    /// `sdk_min` and the optional `sdk_max`, parsed; an empty range would be a release no client
    /// can ever get, so `sdk_max` must exceed `sdk_min`.
    public static func checkSDKRange(min sdkMin: String, max sdkMax: String?) throws(InvalidInput) -> (SDKVersion, SDKVersion?) {
        guard let minV = SDKVersion(sdkMin) else { throw InvalidInput("sdk_min", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
        guard let sdkMax else { return (minV, nil) }
        guard let maxV = SDKVersion(sdkMax) else { throw InvalidInput("sdk_max", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
        guard minV < maxV else { throw InvalidInput("sdk_max", "must be greater than sdk_min (\(sdkMin))") }
        return (minV, maxV)
    }

    /// A file's SHA-256 as every document carries it: 64 lowercase hex digits.
    public static func checkSHA256(_ hex: String, field: String = "sha256") throws(InvalidInput) {
        let valid = hex.withUTF8Bytes { b in b.count == 64 && b.allSatisfy(isLowerHexDigit) }
        guard valid else { throw InvalidInput(field, "must be 64 lowercase hex digits") }
    }

    public static let maxDisplayNameLength = 100

    /// A name an app shows before a download (SPEC §3.2): 1–100 Unicode scalars, no control
    /// characters (the label's rule, shorter).
    public static func checkDisplayName(_ name: String) throws(InvalidInput) {
        let count = name.unicodeScalars.count
        guard count >= 1, count <= maxDisplayNameLength else { throw InvalidInput("display_name", "must be 1–\(maxDisplayNameLength) characters") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw InvalidInput("display_name", "must not contain control characters")
        }
    }

    /// An SPDX licence identifier or expression's characters (`Apache-2.0`, `LLAMA-3.1`,
    /// `LicenseRef-acme`): 1–64 of `[A-Za-z0-9.+-]`; a list of ids is not checked here.
    public static func checkSPDX(_ id: String) throws(InvalidInput) {
        let valid = id.withUTF8Bytes { b in
            (1...64).contains(b.count) && b.allSatisfy { isASCIILetterOrDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
        }
        guard valid else { throw InvalidInput("license.spdx", "must be 1–64 characters of [A-Za-z0-9.+-]") }
    }

    /// An absolute http(s) URL of the licence text, at most 2048 printable ASCII characters
    /// without spaces (it is shown and opened by apps).
    public static func checkLicenseURL(_ url: String) throws(InvalidInput) {
        let valid = url.withUTF8Bytes { b in
            (8...2048).contains(b.count) && b.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        }
        let lower = url.lowercased()
        guard valid, lower.hasPrefix("https://") || lower.hasPrefix("http://"), !lower.hasSuffix("://") else {
            throw InvalidInput("license.url", "must be an http(s) URL of at most 2048 printable ASCII characters")
        }
    }

    /// RAM a release needs (SPEC §3.2), in MB: the device attribute's range.
    public static func checkMinRAMMB(_ mb: Int) throws(InvalidInput) {
        guard DeviceAttributes.ramRange.contains(mb) else { throw InvalidInput("min_ram_mb", "must be an integer 0–10000000") }
    }

    private static func isASCIILetterOrDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    private static func isLowerAlphanumeric(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    private static func isLowerHexDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
    }

    private static func isHexDigit(_ c: UInt8) -> Bool { isLowerHexDigit(c) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F")) }
}
