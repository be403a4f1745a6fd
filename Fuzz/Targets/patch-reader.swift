// libFuzzer target: the MDPACK1 reader applying a patch (SPEC §16) to a base. The input's first
// two bytes give the base's length, the base follows, the rest is the patch. Whole and
// piecewise decoding must agree; an accepted patch was made from a base of this size and
// decodes to the size its header names; and patch → decode gives the new bytes back.
import TensorPack

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPatchReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let baseLength = min(Int(bytes[0]) << 8 | Int(bytes[1]), bytes.count - 2)
    let base = Array(bytes[2..<2 + baseLength]), patch = Array(bytes[(2 + baseLength)...])
    let whole = Result { () throws(PackError) in try TensorPack.decode(patch, base: base) }
    let step = patch.isEmpty ? 1 : Int(patch[patch.count / 2]) % 251 + 1
    check(Result { () throws(PackError) in try TensorPack.decode(patch, base: base, pieceSize: step) } == whole,
          "result differs when fed \(step) bytes at a time")
    if case .success(let out) = whole {
        let header = try? PackHeader(decoding: Array(patch.prefix(PackHeader.encodedSize(fixed: patch))))
        check(header?.kind == .patch && header?.baseSize == Int64(base.count), "accepted a patch not made from a base of this size")
        check(Int64(out.count) == header?.outputSize, "decoded \(out.count) bytes, not the header's size")
    }
    check((try? TensorPack.decode(TensorPack.patch(from: base, to: patch), base: base)) == patch, "patch/decode round trip failed")
    return 0
}
