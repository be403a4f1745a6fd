import Foundation
@testable import ModeldClient
import Testing

/// SPEC §3.1 attributes as the client reads and sends them (SPEC §13.1).
struct DeviceAttributesTests {
    @Test(arguments: [("6.1.0-18-amd64", "6.1.0"), ("5.15.153.1-microsoft-standard-WSL2", "5.15.153"), ("6.8", "6.8"),
                      ("4.19.0+", "4.19.0"), ("rc1", nil), ("1234567.1", nil)])
    func kernelRelease_leadingVersion(release: String, expected: String?) {
        #expect(DeviceAttributes.leadingVersion(release) == expected)
    }

    @Test func printable_trimsAndDropsControlCharacters() {
        #expect(DeviceAttributes.printable("  Standard PC (Q35 + ICH9, 2009)\n", limit: 64) == "Standard PC (Q35 + ICH9, 2009)")
        #expect(DeviceAttributes.printable(String(repeating: "x", count: 80), limit: 64).count == 64)
        #expect(DeviceAttributes.printable("a\u{7}b\u{e9}c", limit: 64) == "abc")
    }

    @Test func current_isValidForTheServer() throws {
        let current = DeviceAttributes.current
        try current.validate()
        #if os(Linux)
        #expect(current.platform == "linux")
        #expect(current.os != nil && (current.ramMB ?? 0) > 0 && current.device != nil)
        #endif
    }

    @Test func badOverrides_areConfigurationErrors() {
        for bad in [DeviceAttributes(platform: "iOS"), DeviceAttributes(ramMB: -1),
                    DeviceAttributes(device: ""), DeviceAttributes(device: "tab\there")] {
            #expect(throws: ModeldClientError.self) { try bad.validate() }
        }
    }
}
