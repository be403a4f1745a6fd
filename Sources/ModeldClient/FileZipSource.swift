import Foundation
import ZipArchive

/// An archive on disk, read through Foundation's `FileHandle` (the client builds on Apple
/// platforms too). Kept out of ZipArchive so the server links it without full Foundation.
final class FileZipSource: ZipSource {
    private let handle: FileHandle
    let size: Int64

    init(_ url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
        size = Int64(try handle.seekToEnd())
    }

    deinit { try? handle.close() }  // read-only: nothing to lose, and deinit cannot throw

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ZipError.malformed("file shorter than expected at offset \(offset)") }
        return [UInt8](data)
    }
}
