import ChildProcesses
import Foundation
import Testing
import ObjectStorage
import ObjectStorageCurl

/// One Ceph RGW for the whole test run, started by scripts/rgw.sh on first use and stopped by
/// PID at exit (or by the script's watchdog if this process dies first).
final class RGWCluster: Sendable {
    static let bucket = "mirror-test"
    /// A bucket whose objects anyone may GET (scripts/rgw.sh's `:public` policy), as a static host's.
    static let publicBucket = "static-test"
    let directory: String
    let endpoint: String
    let credentials: Credentials
    let startSeconds: Double

    /// Tests run when the packages are installed, and always under CI=true (which installs
    /// them with make deps), so a CI machine without RGW fails instead of skipping.
    static let shouldRun: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let installed = ["radosgw", "ceph-mon", "ceph-osd"].allSatisfy { name in
            path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
        }
        return installed || ProcessInfo.processInfo.environment["CI"] == "true"
    }()

    static let skipMessage: Comment = "Ceph RGW (radosgw, ceph-mon, ceph-osd) is not installed: run make deps (under CI=true this fails instead)"

    /// The running cluster, started on first use; a failed start fails every test that needs it.
    static func require() throws -> RGWCluster { try shared.get() }

    private static let shared: Result<RGWCluster, StartFailure> = start()

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    private init(directory: String, endpoint: String, credentials: Credentials, startSeconds: Double) {
        self.directory = directory
        self.endpoint = endpoint
        self.credentials = credentials
        self.startSeconds = startSeconds
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/rgw.sh").path

    private static func start() -> Result<RGWCluster, StartFailure> {
        // Unix socket paths are limited to 108 bytes: keep the directory short.
        let directory = "/tmp/rgw-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let started = ContinuousClock.now
        let result: ProcessResult
        do {
            result = try ChildProcess.run("/bin/bash", [script, "start", directory, bucket, publicBucket + ":public"],
                                          environment: ["RGW_OWNER_PID": String(getpid())], timeout: .seconds(120))
        } catch {
            return .failure(StartFailure(description: "scripts/rgw.sh start: \(error)"))
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        guard result.status == 0, let env = try? String(contentsOfFile: directory + "/env", encoding: .utf8) else {
            return .failure(StartFailure(description: "scripts/rgw.sh start failed (exit \(result.status)): \(result.stdout)\(result.stderr)"))
        }
        var values: [String: String] = [:]
        for line in env.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let endpoint = values["RGW_ENDPOINT"], let credentials = Credentials.fromEnvironment(values) else {
            return .failure(StartFailure(description: "scripts/rgw.sh wrote an incomplete \(directory)/env"))
        }
        let cluster = RGWCluster(directory: directory, endpoint: endpoint, credentials: credentials, startSeconds: seconds)
        FileHandle.standardError.write(Data("RGW started in \(String(format: "%.1f", seconds)) s at \(endpoint)\n".utf8))
        atexit { if case .success(let cluster) = RGWCluster.shared { cluster.stop() } }
        return .success(cluster)
    }

    func stop() {
        _ = try? ChildProcess.run("/bin/bash", [Self.script, "stop", directory], timeout: .seconds(30))  // at exit: nobody to tell
        try? FileManager.default.removeItem(atPath: directory)
    }

    func client(secret: String? = nil, bucket: String = RGWCluster.bucket,
                retry: RetryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(50))) throws -> S3Client {
        var client = S3Client(endpoint: try S3Endpoint(url: endpoint, bucket: bucket),
                              credentials: Credentials(accessKeyID: credentials.accessKeyID, secretAccessKey: secret ?? credentials.secretAccessKey))
        client.retry = retry
        return client
    }
}
