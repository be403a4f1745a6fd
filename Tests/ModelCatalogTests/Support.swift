#if canImport(Glibc)
import Glibc
#endif
@testable import ModelCatalog

/// A fresh directory under /tmp, removed by `remove()`.
struct TempDir {
    let path: String

    init() {
        var template = Array("/tmp/modelcatalog-test-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }

    func remove() { _ = system("rm -rf '\(path)'") }

    func write(_ name: String, _ text: String) {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func read(_ name: String) -> String? {
        guard let bytes = try? FileIO.read(path + "/" + name) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    func exists(_ name: String) -> Bool { access(path + "/" + name, F_OK) == 0 }

    func entries(_ sub: String = "") -> [String] {
        FileIO.entries(of: sub.isEmpty ? path : path + "/" + sub).sorted()
    }
}

let t0 = Timestamp(rfc3339: "2026-11-21T10:00:00.000Z")!
let sha = String(repeating: "ab", count: 32)

/// A release with test defaults; ids are derived from `seq` so tables stay readable.
func rel(
    _ seq: Int64, min: String = "1.0", max: String? = nil, channel: String = "stable",
    percent: Int = 100, state: Release.State = .active, id: String? = nil, label: String = ""
) -> Release {
    let id = id ?? "00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - String(seq).count))\(seq)"
    return try! Release(
        id: id, seq: seq, ext: "onnx", sha256: sha, size: 100 * seq, sdkMin: min, sdkMax: max,
        channel: channel, rolloutPercent: percent, state: state, label: label,
        publishedAt: t0.adding(days: Int(seq)))
}

func v(_ s: String) -> SDKVersion { SDKVersion(s)! }
