import ChildProcesses
import Foundation

/// One finished exchange as real `curl` saw it: the final response's status and headers (an
/// interim `100 Continue` is skipped) and the body it wrote.
struct CurlResponse {
    let status: Int
    /// Header fields of the final response, in order, names as sent.
    let headers: [(name: String, value: String)]
    let body: Data
    let stderr: String

    /// The first field named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every header except the ones that legitimately differ between two responses.
    func stableHeaders(excluding: Set<String> = ["date"]) -> [String: String] {
        var out: [String: String] = [:]
        for (n, v) in headers where !excluding.contains(n.lowercased()) { out[n.lowercased()] = v }
        return out
    }

    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    var errorCode: String? { json?["error"] as? String }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs `/usr/bin/curl` — the standard client — to completion with a bounded wait.
/// `--path-as-is` so that `..` and `//` reach the server verbatim; no proxy.
enum Curl {
    static let executable = URL(fileURLWithPath: "/usr/bin/curl")

    /// `arguments` are curl's own (URL included). `output`: write the body there instead of
    /// keeping it (large downloads); `CurlResponse.body` is then empty.
    static func run(_ arguments: [String], output: URL? = nil, timeout: Duration = .seconds(60)) throws -> CurlResponse {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let head = scratch.appendingPathComponent("head"), body = output ?? scratch.appendingPathComponent("body")
        let result = try ChildProcess.run(
            executable,
            ["-sS", "--path-as-is", "--noproxy", "*", "-D", head.path, "-o", body.path] + arguments,
            timeout: timeout)
        let headText = (try? String(contentsOf: head, encoding: .utf8)) ?? ""
        let (status, headers) = parseFinalHead(headText)
        let bytes = output == nil ? ((try? Data(contentsOf: body)) ?? Data()) : Data()
        if result.status != 0 && status == 0 {
            throw CurlError(message: "curl \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return CurlResponse(status: status, headers: headers, body: bytes, stderr: result.stderr)
    }

    /// The last response head in a `-D` dump (interim 1xx heads come first).
    static func parseFinalHead(_ text: String) -> (Int, [(name: String, value: String)]) {
        let blocks = text.components(separatedBy: "\r\n\r\n").filter { $0.hasPrefix("HTTP/") }
        guard let last = blocks.last else { return (0, []) }
        var lines = last.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        let status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }
}

struct CurlError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Independent SHA-256: coreutils' `sha256sum`.
enum SHA256Sum {
    static func of(_ file: URL) throws -> String {
        let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path], timeout: .seconds(300))
        return String(r.stdout.prefix(64))
    }

    static func of(_ data: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try of(file)
    }
}
