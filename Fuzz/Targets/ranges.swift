// libFuzzer target: precondition evaluation and Range resolution (RFC 9110 §13, §14) as one
// representation plan. The input is up to eight lines: method, If-Match, If-None-Match,
// If-Modified-Since, If-Unmodified-Since, If-Range, Range, file size (empty line = absent).
// Checks that every planned file part lies inside the file and the status fits the parts.
import CivilTime
import HTTPWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRanges(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while lines.count < 8 { lines.append("") }
    func field(_ i: Int) -> String? { lines[i].isEmpty ? nil : lines[i] }
    let fileSize = Int64(lines[7]).map { max(0, $0) } ?? 1000
    let representation = Representation(size: fileSize, etag: "\"v1\"", lastModified: 1_700_000_000,
                                        contentType: "application/octet-stream")
    let request = ConditionalHeaders(ifMatch: field(1), ifNoneMatch: field(2), ifModifiedSince: field(3),
                                     ifUnmodifiedSince: field(4), ifRange: field(5), range: field(6))
    let plan = RepresentationResponder.plan(method: lines[0], request: request, representation: representation,
                                            boundary: "fuzz-boundary")
    for part in plan.parts {
        guard case .file(let offset, let length) = part else { continue }
        check(offset >= 0 && length >= 0 && offset + length <= fileSize, "part \(offset)+\(length) outside \(fileSize)")
    }
    switch plan.status {
    case 200: check(plan.contentLength == fileSize, "200 with \(plan.contentLength) of \(fileSize) bytes")
    case 206: check(plan.header("Content-Range") != nil || plan.parts.count > 1, "206 without Content-Range")
    case 304: check(plan.parts.isEmpty, "304 with a body")
    case 412, 416: break
    default: fatalError("unexpected status \(plan.status)")
    }
    _ = ByteRangeSet.parse(lines[6])
    _ = EntityTagList.parse(lines[1])
    _ = HTTPDate.parse(lines[3])
    return 0
}
