/// A request body produced while it is sent, so it goes out chunked: bytes on demand, then
/// trailer fields computed from them (e.g. a digest).
protocol UploadSource: AnyObject {
    /// Names of the trailer fields, announced up front in the `Trailer` header.
    var trailerNames: [String] { get }
    /// Fills `buffer` with the next bytes and returns their count; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CLIFailure) -> Int
    /// "Name: value" lines sent after the last chunk.
    func trailerFields() -> [String]
}
