/// A patch's XOR (SPEC §16), eight bytes at a time: the encoder applies it to make a patch
/// block, the decoder to undo it. Its own inverse.
public enum ByteXOR {
    /// `target[i] ^= source[i]` for every byte of `source` (`target` is at least as long).
    public static func apply(_ source: UnsafeRawBufferPointer, to target: UnsafeMutableRawBufferPointer) {
        precondition(source.count <= target.count, "XOR past the target")
        guard let from = source.baseAddress, let to = target.baseAddress else { return }
        let words = source.count / 8
        for k in 0..<words {
            let x = to.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self) ^ from.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)
            to.storeBytes(of: x, toByteOffset: 8 * k, as: UInt64.self)
        }
        for i in 8 * words..<source.count {
            to.storeBytes(of: to.load(fromByteOffset: i, as: UInt8.self) ^ from.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
        }
    }
}
