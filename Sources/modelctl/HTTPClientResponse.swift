import Foundation

/// A complete response: status and body (bounded by the client).
struct HTTPClientResponse {
    let status: Int
    let body: [UInt8]
    /// The values of the request's `responseHeaders` that were present.
    var headers: [String: String] = [:]

    /// The SPEC §10 error body `{"error":code,"message":text}`, when the body has that shape.
    var serverError: (code: String, message: String)? {
        struct ErrorBody: Decodable { let error: String; let message: String? }
        // A body that is not the §10 shape is reported by status and raw text instead.
        guard let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) else { return nil }
        return (parsed.error, parsed.message ?? "")
    }

    /// Self when the status is one of `expected`; otherwise "<status> <code>: <message>".
    @discardableResult
    func expect(_ expected: Int...) throws(CLIFailure) -> HTTPClientResponse {
        guard !expected.contains(status) else { return self }
        if let (code, message) = serverError { throw CLIFailure("\(status) \(code): \(message)") }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        throw CLIFailure(text.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(text)")
    }
}
