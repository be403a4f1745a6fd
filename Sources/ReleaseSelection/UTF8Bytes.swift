extension StringProtocol {
    /// Runs `body` over the UTF-8 bytes in place (a small string's inline bytes included).
    /// Validators on the update-check path use it: iterating `utf8` element by element costs
    /// tens of instructions per byte, a buffer loop a few.
    @inlinable
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        utf8.withContiguousStorageIfAvailable(body) ?? Array(utf8).withUnsafeBufferPointer(body)
    }
}
