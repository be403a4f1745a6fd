// Chunking speed at publish (issue #22): cut points alone, then cut + SHA-256 of every chunk
// (ChunkListBuilder, what publish runs), over a file in the page cache, 1 MiB reads.
// Built by run.sh with -O against Sources/ChunkList and the release build's Crypto.
import ChunkList
import Foundation

@main struct ChunkSpeed {
    static func main() throws {
        let path = CommandLine.arguments[1]
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        func seconds(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        var best = (cut: Double.infinity, full: Double.infinity)
        var count = 0
        for _ in 0..<3 {
            best.cut = min(best.cut, seconds { count = ContentDefinedChunker.chunks(bytes).count })
            best.full = min(best.full, seconds {
                var builder = ChunkListBuilder()
                var start = 0
                bytes.withUnsafeBytes { raw in
                    while start < raw.count {
                        let end = min(raw.count, start + (1 << 20))
                        builder.append(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                        start = end
                    }
                }
                precondition(builder.finish().chunks.count == count)
            })
        }
        let mb = Double(bytes.count) / 1e6
        print(String(format: "{\"bytes\":%d,\"chunks\":%d,\"cut_mb_s\":%.0f,\"chunk_and_sha_mb_s\":%.0f,\"sha_share\":%.2f}",
                     bytes.count, count, mb / best.cut, mb / best.full, 1 - best.cut / best.full))
    }
}
