/// Where sign-in returns to (SPEC §15.1): a path on this server, never another site. Browsers
/// read `//host`, `/\host` and `\\host` as other hosts and `scheme:` as a URL of its own, so only
/// a path that starts with one `/` followed by neither `/` nor `\`, with no `\` anywhere and only
/// visible ASCII (no space, control character or raw UTF-8), is kept; anything else is nil and
/// sign-in lands on `/console/`.
public enum ReturnPath {
    public static func validated(_ text: String?) -> String? {
        guard let text, text.utf8.count <= 2_048 else { return nil }
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.count == 1 || (bytes[1] != UInt8(ascii: "/") && bytes[1] != UInt8(ascii: "\\")),
              bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\\") }) else { return nil }
        return text
    }
}
