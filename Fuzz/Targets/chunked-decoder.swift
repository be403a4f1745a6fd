// libFuzzer target: ChunkedDecoder on arbitrary bytes, decoded in one buffer and again in
// pieces (sizes taken from the input); the body and the final event must not differ.
import HTTPWire

/// Decodes `pieces` as a connection would: unconsumed bytes are handed back with the next read.
func decodeChunked(_ pieces: [ArraySlice<UInt8>]) -> (body: [UInt8], last: ChunkedDecoder.Event) {
    var decoder = ChunkedDecoder(maxTrailerBytes: 512)
    var pending: [UInt8] = []
    var body: [UInt8] = []
    var next = 0
    while true {
        let (consumed, event) = pending.withUnsafeBytes { decoder.decode($0) }
        check(consumed >= 0 && consumed <= pending.count, "consumed \(consumed) of \(pending.count)")
        switch event {
        case .data(let r):
            check(r.upperBound <= consumed && !r.isEmpty, "data range \(r) outside consumed \(consumed)")
            body += pending[r]
        case .needMore:
            guard next < pieces.count else { return (body, .needMore) }
            pending.append(contentsOf: pieces[next])
            next += 1
        case .end, .error:
            return (body, event)
        }
        pending.removeFirst(consumed)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunkedDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = decodeChunked([bytes[...]])
    let step = bytes.isEmpty ? 1 : Int(bytes[bytes.count - 1]) % 7 + 1
    let pieces = stride(from: 0, to: bytes.count, by: step).map { bytes[$0..<min($0 + step, bytes.count)] }
    let split = decodeChunked(pieces)
    check(whole.body == split.body, "body differs when read \(step) bytes at a time")
    switch (whole.last, split.last) {
    case (.error, .error): break   // the message may name a different position
    default: check(whole.last == split.last, "final event differs when read \(step) bytes at a time")
    }
    return 0
}
