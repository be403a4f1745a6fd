import ArgumentParser
import Foundation

/// Client-side checks mirroring the server's (SPEC §3), so a typo exits 2 before a byte is sent.
enum AdminValidation {
    /// `MAJOR[.MINOR[.PATCH]]`, each 0–999999; missing components are 0.
    static func sdkVersion(_ text: String, option: String) throws -> [Int] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { part -> Int? in
            guard (1...6).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber) else { return nil }
            return Int(part)
        }
        guard (1...3).contains(parts.count), numbers.count == parts.count else {
            throw ValidationError("\(option) '\(text)' is not an SDK version (MAJOR[.MINOR[.PATCH]], numbers 0-999999)")
        }
        return numbers + Array(repeating: 0, count: 3 - numbers.count)
    }

    static func channel(_ text: String) throws {
        guard (1...32).contains(text.utf8.count),
              text.utf8.allSatisfy({ isLowerAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else {
            throw ValidationError("--channel '\(text)' must be 1-32 characters of a-z, 0-9, _ and -")
        }
    }

    static func releaseID(_ text: String, option: String = "ID") throws {
        guard UUID(uuidString: text) != nil else { throw ValidationError("\(option) '\(text)' is not a UUID") }
    }

    static func rollout(_ percent: Int, option: String) throws {
        guard (0...100).contains(percent) else { throw ValidationError("\(option) must be 0-100, got \(percent)") }
    }

    /// Everything after the first dot of the file's base name, lowercased (`x.mlmodelc.zip` →
    /// `mlmodelc.zip`); it must match `[a-z0-9]+(\.[a-z0-9]+)*` and be at most 16 characters.
    static func ext(ofFile path: String) throws -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.firstIndex(of: ".") else {
            throw ValidationError("'\(base)' has no extension; the release's ext is everything after the first dot of the file name")
        }
        let ext = base[base.index(after: dot)...].lowercased()
        let parts = ext.split(separator: ".", omittingEmptySubsequences: false)
        guard ext.utf8.count <= 16, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isLowerAlphanumeric) }) else {
            throw ValidationError("extension '\(ext)' of '\(base)' must be dot-separated a-z/0-9 words, at most 16 characters")
        }
        return ext
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
