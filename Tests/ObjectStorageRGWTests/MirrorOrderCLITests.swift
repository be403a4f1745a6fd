import ChildProcesses
import Foundation
import ObjectStorageCurl
import Testing

/// SPEC §9.1 (issue #13): a client reading the bucket never sees a JSON — pointer, signed pointer
/// or snapshot — before every file it names is complete. The bucket is polled while the real
/// `modelctl mirror` uploads a large file: first into an empty prefix, then with an older JSON
/// already visible.
extension MirrorCLITests {
    @Test func jsonIsNeverVisibleBeforeTheFilesItNames_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (scratch, models) = try Self.emptyModelsDirectory()
        defer { Self.remove(models) }
        let generated = try ChildProcess.run(Self.modelctl, ["keys", "generate", "--name", "k1", "--out", scratch], timeout: .seconds(30))
        try #require(generated.status == 0, "\(generated.stderr)")
        let prefix = "order-\(UUID().uuidString)"
        let pointerKey = "\(prefix)/models/latest_model_details.json"
        let size = 32 << 20  // 7 parts of 5 MiB, one at a time: polls see the file incomplete many times

        for (round, sdk) in [(1, "1.0"), (2, "2.0")] {
            // Sparse, with a marker at the end so the two releases differ.
            let source = scratch + "/big\(round).onnx"
            let fd = open(source, O_WRONLY | O_CREAT, 0o644)
            ftruncate(fd, off_t(size))
            _ = pwrite(fd, "round \(round)", 7, off_t(size - 7))
            close(fd)
            let published = try ChildProcess.run(Self.modelctl, ["publish", source, "--sdk-min", sdk, "--models-dir", models,
                                                      "--public-base-url", "http://cdn.example", "--json"], timeout: .seconds(120))
            try #require(published.status == 0, "\(published.stderr)")
            let id = try #require(published.stdout.firstRange(of: #""id":""#).map { String(published.stdout[$0.upperBound...].prefix(36)) })
            let signed = try ChildProcess.run(Self.modelctl, ["sign", "refresh", "--models-dir", models, "--key", scratch + "/k1.key"], timeout: .seconds(30))
            try #require(signed.status == 0, "\(signed.stderr)")
            let localPointer = Array(try Data(contentsOf: URL(fileURLWithPath: models + "/latest_model_details.json")))
            let signature = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: models + "/latest_model_details.sig.json")))
            let snapshot = try #require((signature as? [String: Any])?["file"] as? String)
            let watched = [pointerKey, "\(prefix)/models/latest_model_details.sig.json", "\(prefix)/models/\(snapshot)"]
            let bigKey = "\(prefix)/models/\(id).onnx"

            let running = try ChildProcess.start(Self.modelctl, [
                "mirror", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
                "--max-age", "30", "--multipart-threshold", "10MiB", "--part-size", "5MiB", "--concurrency", "1"],
                environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey])
            var pollsWhileUploading = 0, violations: [String] = [], namedInFinalPointer = 0
            let mirrored = try Self.poll(seconds: 240, every: 0.01) {
                // The file's state first: a JSON seen after this must already name only complete files.
                if try client.head(bigKey)?.size != Int64(size) { pollsWhileUploading += 1 }
                for key in watched {
                    guard try client.head(key) != nil else { continue }
                    violations += try Self.incompleteFiles(namedBy: client.get(key), client: client, prefix: prefix).map { "\(key) names \($0)" }
                }
                guard try client.head(pointerKey) != nil, try client.get(pointerKey) == localPointer else { return false }
                namedInFinalPointer = Self.namedFiles(in: try JSONSerialization.jsonObject(with: Data(client.get(pointerKey)))).count
                return true
            }
            let result = try running.wait(timeout: .seconds(120))
            #expect(result.status == 0, "round \(round): \(result.stderr)")
            #expect(mirrored, "round \(round): the new pointer became visible")
            #expect(violations.isEmpty, "round \(round): \(violations.prefix(5))")
            #expect(pollsWhileUploading >= 5, "round \(round): only \(pollsWhileUploading) polls saw the file incomplete")
            // Each release's file and its chunk list (SPEC §14), both checked complete above.
            #expect(namedInFinalPointer == 2 * round, "round \(round): the pointer names every release")
        }
    }

    /// The files a JSON names (a `url`'s last component, or a `file`, next to its `size` and
    /// `sha256`) that are not complete in the bucket under `prefix/models/`.
    static func incompleteFiles(namedBy json: [UInt8], client: S3Client, prefix: String) throws -> [String] {
        try namedFiles(in: JSONSerialization.jsonObject(with: Data(json))).compactMap { named in
            let head = try client.head("\(prefix)/models/\(named.file)")
            return head?.size == named.size && head?.sha256 == named.sha256 ? nil : "\(named.file) (HEAD: \(head.map { "\($0.size) bytes" } ?? "absent"))"
        }
    }

    /// Every object in a JSON value that names a file, with the size and hash it promises.
    static func namedFiles(in json: Any) -> [(file: String, size: Int64, sha256: String)] {
        if let array = json as? [Any] { return array.flatMap { namedFiles(in: $0) } }
        guard let object = json as? [String: Any] else { return [] }
        let nested = object.values.flatMap { namedFiles(in: $0) }
        guard let file = (object["url"] as? String).map({ String($0.split(separator: "/").last ?? "") }) ?? object["file"] as? String,
              let size = (object["size"] as? NSNumber)?.int64Value, let sha256 = object["sha256"] as? String else { return nested }
        return [(file, size, sha256)] + nested
    }
}
