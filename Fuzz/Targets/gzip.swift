// libFuzzer target: the gzip inflater on arbitrary bytes, whole and in pieces (sizes from the
// input), which must agree; and compress → inflate must give the input back.
import HTTPWire

let limit = 1 << 20

func inflateInPieces(_ bytes: [UInt8], step: Int) -> Result<[UInt8], GzipError> {
    var inflater = GzipInflater(limit: limit)
    for start in stride(from: 0, to: bytes.count, by: step) {
        let failure: GzipError? = bytes[start..<min(start + step, bytes.count)].withUnsafeBytes { piece in
            do throws(GzipError) { try inflater.append(piece) } catch { return error }
            return nil
        }
        if let failure { return .failure(failure) }
    }
    do throws(GzipError) {
        let output = try inflater.finish()
        check(output.count <= limit, "inflated past the limit")
        return .success(output)
    } catch {
        return .failure(error)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole: Result<[UInt8], GzipError>
    do { whole = .success(try Gzip.inflate(bytes, limit: limit)) } catch { whole = .failure(error) }
    let step = bytes.isEmpty ? 1 : Int(bytes[bytes.count / 2]) % 13 + 1
    check(inflateInPieces(bytes, step: step) == whole, "result differs when fed \(step) bytes at a time")
    check((try? Gzip.inflate(Gzip.compress(bytes), limit: limit)) == bytes, "compress/inflate round trip failed")
    return 0
}
