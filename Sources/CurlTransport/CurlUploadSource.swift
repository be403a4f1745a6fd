/// A request body produced while it is sent: bytes on demand, then (for chunked uploads)
/// trailer fields computed from them (e.g. a digest).
public protocol CurlUploadSource: AnyObject {
    /// Names of the trailer fields, announced up front in the `Trailer` header.
    var trailerNames: [String] { get }
    /// Fills `buffer` with the next bytes and returns their count; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// "Name: value" lines sent after the last chunk.
    func trailerFields() -> [String]
}

extension CurlUploadSource {
    public var trailerNames: [String] { [] }
    public func trailerFields() -> [String] { [] }
}

/// Told how many body bytes have gone out, then once that the transfer ended.
public protocol CurlProgressObserver: AnyObject {
    func update(sent: Int64)
    func finish()
}
