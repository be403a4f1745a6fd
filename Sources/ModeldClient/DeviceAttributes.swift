import Foundation
import ReleaseSelection
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device as the OS reports it (SPEC §13.1), in selection's shared vocabulary, and the
/// check that an app's override follows §3.1's syntax.
extension DeviceAttributes {
    /// SPEC §3.1's syntax, so a bad override fails at start instead of at every check (400).
    func validate() throws {
        if let platform, !Self.isPlatform(platform) {
            throw ModeldClientError.invalidConfiguration("platform '\(platform)' is not [a-z0-9_-]{1,32}")
        }
        if let ramMB, !Self.ramRange.contains(ramMB) { throw ModeldClientError.invalidConfiguration("ram_mb \(ramMB) is not 0–10000000") }
        if let device, !Self.isDevice(device) {
            throw ModeldClientError.invalidConfiguration("device '\(device)' is not 1–64 printable ASCII characters")
        }
        if let systemModel, !Self.isSystemModel(systemModel) {
            throw ModeldClientError.invalidConfiguration("system_model '\(systemModel)' is not [A-Za-z0-9._-]{1,32}")
        }
    }

    /// `text` without what is not printable ASCII, spaces trimmed, at most `limit` characters.
    static func printable(_ text: String, limit: Int) -> String {
        let kept = String(decoding: text.utf8.filter { (0x20...0x7e).contains($0) }, as: UTF8.self)
        return String(kept.trimmingCharacters(in: .whitespaces).prefix(limit))
    }

    /// The leading `MAJOR.MINOR.PATCH` of a version string such as a kernel release
    /// (`6.1.0-18-amd64` → `6.1.0`); nil when it does not start with a number.
    static func leadingVersion(_ text: String) -> String? {
        var parts: [String] = []
        for piece in text.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false).prefix(3) {
            let digits = piece.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 6 else { break }
            parts.append(String(digits))
            if digits.count != piece.count { break }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ".")
    }

    /// This device, read from the OS.
    public static var current: DeviceAttributes {
        let ram = Int(ProcessInfo.processInfo.physicalMemory / (1 << 20))
        #if os(Linux)
        let (release, machine) = kernel()
        let product = (try? String(contentsOfFile: "/sys/class/dmi/id/product_name", encoding: .utf8))  // absent on many ARM boards and in containers: the architecture names the device then
            .map { printable($0, limit: 64) }
        let device = product.flatMap { $0.isEmpty ? nil : $0 } ?? printable(machine, limit: 64)
        return DeviceAttributes(platform: "linux", os: leadingVersion(release).flatMap { SDKVersion($0) }, ramMB: ram,
                                device: device.isEmpty ? nil : device)
        #elseif canImport(Darwin)
        let v = ProcessInfo.processInfo.operatingSystemVersion
        let os = SDKVersion("\(v.majorVersion).\(v.minorVersion).\(v.patchVersion)")
        // On a Mac hw.machine is the CPU (arm64); hw.model is the model (Mac14,2). The simulator
        // names the device it simulates in its environment.
        #if os(macOS)
        let device = sysctlString("hw.model")
        #else
        let device = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] ?? sysctlString("hw.machine")
        #endif
        #if os(iOS)
        let platform = device.hasPrefix("iPad") ? "ipados" : "ios"
        #elseif os(macOS)
        let platform = "macos"
        #elseif os(tvOS)
        let platform = "tvos"
        #elseif os(watchOS)
        let platform = "watchos"
        #elseif os(visionOS)
        let platform = "visionos"
        #else
        let platform: String? = nil
        #endif
        let trimmed = printable(device, limit: 64)
        return DeviceAttributes(platform: platform, os: os, ramMB: ram, device: trimmed.isEmpty ? nil : trimmed)
        #else
        return DeviceAttributes(ramMB: ram)
        #endif
    }

    #if os(Linux)
    private static func kernel() -> (release: String, machine: String) {
        var names = utsname()
        guard uname(&names) == 0 else { return ("", "") }
        func text<T>(_ field: T) -> String { withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
        return (text(names.release), text(names.machine))
    }
    #endif

    #if canImport(Darwin)
    private static func sysctlString(_ name: String) -> String {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return "" }
        var bytes = [UInt8](repeating: 0, count: size)
        guard sysctlbyname(name, &bytes, &size, nil, 0) == 0 else { return "" }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    #endif
}
