// libFuzzer target: the MDPACK1 reader (SPEC §16 packed files) on arbitrary bytes, whole and in
// pieces (sizes from the input), which must agree; an accepted pack decodes to the size its
// header names and ends where its index says; and pack → decode gives the input back.
import TensorPack

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = Result { () throws(PackError) in try TensorPack.decode(bytes) }
    let step = bytes.isEmpty ? 1 : Int(bytes[bytes.count / 2]) % 251 + 1
    check(Result { () throws(PackError) in try TensorPack.decode(bytes, pieceSize: step) } == whole,
          "result differs when fed \(step) bytes at a time")
    if case .success(let out) = whole, let header = try? PackHeader(decoding: Array(bytes.prefix(PackHeader.encodedSize(fixed: bytes)))) {
        check(header.kind == .pack, "a patch decoded without its base")
        check(Int64(out.count) == header.outputSize, "decoded \(out.count) bytes, the header names \(header.outputSize)")
        check(Int64(bytes.count) == header.fileSize, "accepted \(bytes.count) bytes, the index ends at \(header.fileSize)")
    } else if case .success = whole {
        check(false, "accepted a pack whose header does not parse")
    }
    check((try? TensorPack.decode(TensorPack.pack(bytes))) == bytes, "pack/decode round trip failed")
    return 0
}
