#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte classes of RFC 9110 §5.6 used by the parsers.
enum ASCII {
    static let cr: UInt8 = 13, lf: UInt8 = 10, sp: UInt8 = 32, ht: UInt8 = 9, colon: UInt8 = 58

    static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }

    /// tchar: "!#$%&'*+-.^_`|~" / DIGIT / ALPHA.
    /// As two 64-bit masks (bit b of `tokenLow` is byte b, of `tokenHigh` byte 64 + b) rather
    /// than a global table: every header name byte is checked, and a global array costs a
    /// lazy-initialisation check and a bounds check per byte. ASCIITests derives them again.
    static let tokenLow: UInt64 = 0x03FF_6CFA_0000_0000, tokenHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    static func isToken(_ b: UInt8) -> Bool {
        b < 64 ? (tokenLow >> b) & 1 == 1 : b < 128 && (tokenHigh >> (b - 64)) & 1 == 1
    }

    /// field-vchar / SP / HTAB (obs-text allowed); rejects CTLs including bare CR, LF, NUL and DEL.
    static func isFieldValueByte(_ b: UInt8) -> Bool { b == ht || (b >= 0x20 && b != 0x7F) }

    /// request-target bytes: visible ASCII only.
    static func isTargetByte(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F }

    /// Whether every byte is a target byte, eight at a time: the target is the longest part of
    /// an update check's head (device attributes double it) and a byte loop costs ~10
    /// instructions per byte. Per word, a byte < 0x21 or > 0x7E sets its high bit in `low` or
    /// `high` (the exact "has less / has more" tests of Bit Twiddling Hacks).
    static func allTargetBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= bytes.count {
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let low = (w &- ones &* 0x21) & ~w & highBits
            let high = ((w &+ ones &* (127 - 0x7E)) | w) & highBits
            if low | high != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if !isTargetByte(bytes[i]) { return false }
            i += 1
        }
        return true
    }

    static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == ht }

    /// Case-insensitive equality of a byte slice with a lowercase ASCII literal.
    static func equalsLowercase(_ bytes: UnsafeRawBufferPointer.SubSequence, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let lit = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        var i = lit.startIndex
        for b in bytes {
            if lower(b) != lit[i] { return false }
            i += 1
        }
        return true
    }
}

extension Slice where Base == UnsafeRawBufferPointer {
    /// The index of the first `byte`, by memchr: the parsers scan every request byte for LF, SP,
    /// ':' and '?', and the generic `firstIndex(of:)` costs about a nanosecond per byte.
    func index(ofByte byte: UInt8) -> Int? {
        guard !isEmpty, let base = base.baseAddress else { return nil }
        guard let hit = memchr(base + startIndex, Int32(byte), count) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }
}
