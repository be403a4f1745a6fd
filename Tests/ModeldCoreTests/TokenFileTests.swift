import BinaryText
import Foundation
import Testing
@testable import ModeldConfig
@testable import ModeldCore

@Suite struct TokenFileTests {
    private func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func tokenFile_missingFileIsCreatedWithRandomToken0600_SPEC8() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/nested/dir/admin.token"

        let created = try TokenFile.loadOrCreate(path: path)
        #expect(created.created)
        #expect(created.token.count == 64)
        #expect(created.token.allSatisfy { "0123456789abcdef".contains($0) })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let again = try TokenFile.loadOrCreate(path: path)
        #expect(again == TokenFile.Loaded(token: created.token, created: false))
        #expect(try TokenFile.loadOrCreate(path: root + "/other.token").token != created.token)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/nested/dir") == ["admin.token"])
    }

    @Test func tokenFile_existingTokenIsTrimmed_SPEC8() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "  my-token\n\n".write(toFile: root + "/t", atomically: false, encoding: .utf8)
        #expect(try TokenFile.loadOrCreate(path: root + "/t") == TokenFile.Loaded(token: "my-token", created: false))
        try "\n".write(toFile: root + "/empty", atomically: false, encoding: .utf8)
        #expect(throws: TokenFileError.self) { try TokenFile.loadOrCreate(path: root + "/empty") }
    }

    @Test(arguments: [
        ("Bearer secret-1", true), ("bearer secret-1", true), ("BEARER  secret-1", true),
        ("Bearer secret-2", false), ("Bearer secret-1x", false), ("Bearer secret", false),
        ("Basic secret-1", false), ("Bearer ", false), ("secret-1", false), ("", false),
    ])
    func adminToken_bearerComparedExactly_SPEC7_1(header: String, accepted: Bool) {
        #expect((AdminToken.bearer(header).map(AdminToken("secret-1").matches(token:)) ?? false) == accepted)
    }

    @Test func adminToken_missingHeaderIsRefused_SPEC7_1() {
        #expect(AdminToken.bearer(nil) == nil)
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2], [1, 2, 3]))
    }
}
