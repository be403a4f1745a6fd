import ChildProcesses
import Foundation
import ModeldSigning
import Testing

/// Keys, a signing server and signature checks for the SPEC §12 tests. Keys come from the real
/// `modelctl keys generate`; checks use the ModeldSigning verifier over curl's raw answers
/// (Python `cryptography` checks the same independently in scripts/checks/signatures-python.sh).
struct SigningFixture {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("signing-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: dir) }

    var keys: URL { dir.appendingPathComponent("keys") }
    func key(_ name: String) -> String { keys.appendingPathComponent("\(name).key").path }
    func pub(_ name: String) -> String { keys.appendingPathComponent("\(name).pub").path }

    @discardableResult
    func generate(_ name: String) throws -> ProcessResult {
        let r = try modelctl(["keys", "generate", "--name", name, "--out", keys.path])
        #expect(r.status == 0, "\(r.stderr)")
        return r
    }

    func modelctl(_ arguments: [String], timeout: Duration = .seconds(60)) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: dir, timeout: timeout)
    }

    func trusted(_ names: [String]) throws -> SignatureVerifier {
        SignatureVerifier(trusted: try names.map { name in
            try KeyFileFormat.parsePublic(String(contentsOfFile: pub(name), encoding: .utf8))
        })
    }

    /// A server signing with `names` (through MODELD_SIGNING_* env, like a container would).
    func server(_ names: [String], resignSeconds: Int = 3600, root: URL? = nil, models: URL? = nil) throws -> ModeldServer {
        try ModeldServer(environment: ["MODELD_SIGNING_KEYS": names.map(key).joined(separator: ","),
                                       "MODELD_SIGNING_RESIGN_SECONDS": "\(resignSeconds)"],
                         root: root, models: models)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Verifies a /latest answer's headers over `identity`; returns the keyids that verified.
    static func verify(_ r: CurlResponse, identity: Data, with v: SignatureVerifier) throws -> [String] {
        try v.verifyLatest(paramsHeader: r.header(SignatureParams.headerName), signatureHeader: r.header(SignatureList.headerName),
                           body: Array(identity), now: now)
    }
}
