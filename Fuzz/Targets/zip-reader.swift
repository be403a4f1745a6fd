// libFuzzer target: the zip reader on arbitrary bytes. Whatever it accepts must keep its
// promises: safe relative names, declared totals within the limits, and extraction that either
// throws or hands out exactly the declared number of bytes.
import ZipArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZipReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ZipLimits(ratio: 20, maxTotal: 64 << 20)
    guard let reader = try? ZipReader(BytesZipSource(bytes), limits: limits) else { return 0 }
    let total = reader.entries.reduce(Int64(0)) { $0 + $1.uncompressedSize }
    check(total <= min(limits.maxTotal, Int64(size) * limits.ratio), "accepted \(total) declared bytes from \(size)")
    for entry in reader.entries {
        let components = entry.name.split(separator: "/", omittingEmptySubsequences: false).dropLast(entry.isDirectory ? 1 : 0)
        check(!entry.name.hasPrefix("/") && !components.contains("..") && !components.contains("") && !entry.name.contains("\\"),
              "unsafe name accepted: \(entry.name)")
        var produced: Int64 = 0
        do {
            try reader.extract(entry) { produced += Int64($0.count) }
            check(produced == entry.uncompressedSize, "\(entry.name): \(produced) bytes, declared \(entry.uncompressedSize)")
        } catch {
            check(produced <= entry.uncompressedSize, "\(entry.name): \(produced) bytes handed out past the declared \(entry.uncompressedSize)")
        }
    }
    return 0
}
