import Foundation
import ModelCatalog
import ModeldSigning

/// `modelctl verify --signatures` (SPEC §12): the pointer and its snapshot, and against a server
/// `/latest?sdk=V` for each key of the snapshot (or `--sdk`), each checked with the trusted
/// `.pub` keys. One line per check; any failure makes the command fail.
struct VerifySignatures {
    let verifier: SignatureVerifier
    let now = Int64(Date().timeIntervalSince1970)
    private(set) var failures: [String] = []

    init(publicKeyFiles: [String]) throws(CLIFailure) {
        var keys: [TrustedKey] = []
        for path in publicKeyFiles {
            do { keys.append(try SigningKeyFile.loadPublic(path)) } catch { throw CLIFailure(error.reason, exitCode: 2) }
        }
        verifier = SignatureVerifier(trusted: keys)
    }

    /// Static files of a models directory.
    mutating func checkDirectory(_ dir: String) throws(CLIFailure) {
        let pointerBytes = FileManager.default.contents(atPath: "\(dir)/\(SignedPointer.fileName)").map { Array($0) }
        _ = try checkPointer(pointerBytes, source: dir) { file in FileManager.default.contents(atPath: "\(dir)/\(file)").map { Array($0) } }
    }

    /// The pointer, its snapshot and `/latest` for `sdk` (or every key of the snapshot).
    mutating func checkServer(_ client: HTTPClient, sdk: String?) throws(CLIFailure) {
        let fetch = { (path: String) throws(CLIFailure) -> [UInt8]? in
            let r = try client.send(HTTPClientRequest(path: path))
            return r.status == 200 ? r.body : nil
        }
        let pointer = try fetch("/" + SignedPointer.fileName)
        let snapshotBytes = try checkPointer(pointer, source: client.baseURL) { file throws(CLIFailure) in try fetch("/" + file) }
        let versions = sdk.map { [$0] } ?? Self.sdkKeys(of: snapshotBytes)
        if versions.isEmpty { report(nil, "no SDK version to check /latest with (empty snapshot; pass --sdk)") }
        for v in versions {
            var request = HTTPClientRequest(path: "/latest", query: [("sdk", v)])
            request.responseHeaders = [SignatureParams.headerName, SignatureList.headerName]
            let r = try client.send(request)
            let what = "/latest?sdk=\(v)"
            if r.status == 404, r.serverError?.code == "no_model" { print("skip  \(what): no_model (errors are unsigned)"); continue }
            guard r.status == 200 else { report(nil, "\(what): HTTP \(r.status)"); continue }
            report(Result { () throws(SignatureVerifier.Failure) in
                try verifier.verifyLatest(paramsHeader: r.headers[SignatureParams.headerName],
                                          signatureHeader: r.headers[SignatureList.headerName], body: r.body, now: now)
            }, what)
        }
    }

    /// Verifies a pointer and the snapshot it names; returns the snapshot bytes when both verify.
    private mutating func checkPointer(_ bytes: [UInt8]?, source: String, read: (String) throws(CLIFailure) -> [UInt8]?) throws(CLIFailure) -> [UInt8]? {
        guard let bytes else { report(nil, "\(SignedPointer.fileName): missing at \(source)"); return nil }
        let pointer: SignedPointer
        do { pointer = try SignedPointer.decode(bytes) } catch { report(nil, "\(SignedPointer.fileName): \(error)"); return nil }
        guard let snapshot = try read(pointer.file) else { report(nil, "\(pointer.file): missing at \(source)"); return nil }
        let ok = report(Result { () throws(SignatureVerifier.Failure) in try verifier.verifyPointer(pointer, snapshot: snapshot, now: now) },
                        "\(SignedPointer.fileName) → \(pointer.file) (catalog \(pointer.catalog))")
        return ok ? snapshot : nil
    }

    @discardableResult
    private mutating func report(_ result: Result<[String], SignatureVerifier.Failure>?, _ what: String) -> Bool {
        switch result {
        case .success(let ids)?:
            print("ok    \(what): verified by \(ids.joined(separator: ", "))")
            return true
        case .failure(let e)?:
            failures.append("\(what): \(e)")
        case nil:
            failures.append(what)
        }
        print("FAIL  \(failures.last!)")
        return false
    }

    /// The `M.m.p` keys of a derived-file snapshot whose value is a document.
    private static func sdkKeys(of snapshot: [UInt8]?) -> [String] {
        // A snapshot that is not JSON fails its own signature/digest check; here it only has no keys.
        guard let snapshot, let object = try? JSONSerialization.jsonObject(with: Data(snapshot)) as? [String: Any] else { return [] }
        return object.filter { !($0.value is NSNull) }.keys.sorted()
    }
}
