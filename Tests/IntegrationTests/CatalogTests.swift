import ChildProcesses
import Foundation
import Testing

/// Shared by the Catalog*Tests suites: one real `modeld` (ModeldServer), a scratch directory,
/// and the real `modelctl` and `curl` pointed at it.
final class CatalogFixture {
    let server: ModeldServer
    let scratch: URL

    convenience init(environment: [String: String] = [:], extraArguments: [String] = [], empty: Bool = true) throws {
        try self.init(server: try ModeldServer(extraArguments: extraArguments, environment: environment, empty: empty))
    }

    /// Around a server started elsewhere (e.g. a signing one).
    init(server: ModeldServer) throws {
        self.server = server
        scratch = server.root.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    var base: String { server.url }

    /// `modelctl ARGS --server URL --token T`.
    func modelctl(_ arguments: [String], timeout: Duration = .seconds(120)) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments + ["--server", server.url, "--token", server.token], timeout: timeout)
    }

    /// Publishes with `modelctl publish --json` and returns the release it printed.
    func publish(_ file: URL, sdkMin: String = "1.0", _ extra: [String] = [], timeout: Duration = .seconds(120)) throws -> [String: Any] {
        let r = try modelctl(["publish", file.path, "--sdk-min", sdkMin, "--json"] + extra, timeout: timeout)
        try #require(r.status == 0, "modelctl publish failed: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// A file of `size` random bytes.
    func randomFile(_ name: String = "model.bin", size: Int = 64 * 1024 + 3) throws -> URL {
        let file = scratch.appendingPathComponent("\(UUID().uuidString.prefix(8))-\(name)")
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try (random.read(upToCount: size) ?? Data()).write(to: file)
        return file
    }

    /// `curl [ARGS] BASE+PATH`.
    func curl(_ path: String, _ arguments: [String] = [], output: URL? = nil, timeout: Duration = .seconds(60)) throws -> CurlResponse {
        try Curl.run(arguments + [base + path], output: output, timeout: timeout)
    }

    var auth: [String] { ["-H", "Authorization: Bearer \(server.token)"] }

    /// `GET /latest?QUERY` → the release id chosen (nil on 404).
    func latestID(_ query: String, _ arguments: [String] = []) throws -> String? {
        let r = try curl("/latest?\(query)", arguments)
        return r.status == 200 ? r.json?["id"] as? String : nil
    }

    /// The value of one unlabelled sample in /metrics.
    func metric(_ name: String) throws -> Double? {
        let text = try curl("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ")[1])
        }
        return nil
    }

    /// Names in models/ and models/.tmp/ (what a failed upload must not leave behind).
    func modelsEntries() -> (models: Set<String>, tmp: Set<String>) {
        let fm = FileManager.default
        let models = Set((try? fm.contentsOfDirectory(atPath: server.modelsDir.path)) ?? [])
        let tmp = Set((try? fm.contentsOfDirectory(atPath: server.modelsDir.appendingPathComponent(".tmp").path)) ?? [])
        return (models, tmp)
    }

    /// catalog.json as JSON.
    func catalogOnDisk() throws -> [String: Any] {
        let data = try Data(contentsOf: server.modelsDir.appendingPathComponent("catalog.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Replaces catalog.json the way another publisher would: temp in the same directory, fsync, rename.
    func replaceCatalogAtomically(_ bytes: Data) throws {
        let tmp = server.modelsDir.appendingPathComponent(".catalog-\(UUID().uuidString).tmp")
        try bytes.write(to: tmp)
        let fd = open(tmp.path, O_RDONLY)
        fsync(fd)
        close(fd)
        try #require(rename(tmp.path, server.modelsDir.appendingPathComponent("catalog.json").path) == 0)
    }
}

/// Bucket of SPEC §3, computed independently by Python's hashlib.
enum RolloutOracle {
    static func buckets(releaseID: String, clientIDs: [String]) throws -> [String: Int] {
        let script = """
        import hashlib, sys
        rid = sys.argv[1]
        for c in sys.argv[2:]:
            d = hashlib.sha256((rid + ":" + c).encode()).digest()
            print(c, int.from_bytes(d[:4], "big") % 100)
        """
        let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, releaseID] + clientIDs)
        try #require(r.status == 0, "python3: \(r.stderr)")
        var out: [String: Int] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            out[String(parts[0])] = Int(parts[1])
        }
        return out
    }
}
