// libFuzzer target: the `.chunks` reader (SPEC §14) on arbitrary bytes. An accepted list must
// obey the format's rules and encode back to exactly the bytes read (the reader accepts
// nothing the writer would not write).
import ChunkList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let list = try? ChunkList(decoding: bytes) else { return 0 }
    check(list.encoded() == bytes, "an accepted list does not encode back to its bytes")
    check(list.chunks.reduce(Int64(0)) { $0 + Int64($1.length) } == list.fileSize, "lengths do not sum to the file size")
    check(list.chunks.allSatisfy { $0.length >= 1 && $0.length <= ContentDefinedChunker.maxSize }, "a chunk length is out of bounds")
    return 0
}
