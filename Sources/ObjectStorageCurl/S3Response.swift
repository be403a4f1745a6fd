/// A store's answer: status, header fields (names lowercased) and the body read into memory.
public struct S3Response: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }
}
