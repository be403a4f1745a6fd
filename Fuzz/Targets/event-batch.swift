// libFuzzer target: the event-batch JSON reader (its member picker, the tape) and batch validation
// (SPEC §4.2) on arbitrary bytes. An accepted batch must splice back: every event span is an
// object inside the body.
@testable import EventStore
import JSONSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventBatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let root = try? JSONReader.parse(bytes)
    if let root {
        check(root.range.upperBound <= bytes.count, "node range \(root.range) outside \(bytes.count) bytes")
    }
    // The member picker (the guard's tail) is the same reader: it takes an object exactly when parse does.
    var isObject = false
    if case .object? = root?.value { isObject = true }
    let picked = try? JSONReader.members(["batch_id", "events"], of: bytes[...])
    check((picked != nil) == isObject, "members and parse disagree on whether this is a valid object")
    // So is the tape (catalog.json's reader): it accepts exactly what parse accepts, spanning the same bytes.
    let tape = try? JSONTape(bytes)
    check((tape != nil) == (root != nil), "the tape and parse disagree on whether this is valid JSON")
    if let tape, let root {
        check(tape.range(tape.root) == root.range && tape.kind(tape.root) == tapeKind(root.value), "the tape's root is not parse's")
    }
    guard let batch = try? BatchParser.parse(bytes, queryClientID: "fuzz", maxEventsPerBatch: 64) else { return 0 }
    check(batch.eventCount <= 64, "more events than allowed")
    for span in batch.events {
        check(span.start < span.close && span.close < bytes.count, "span \(span) outside the body")
        check(bytes[span.start] == UInt8(ascii: "{") && bytes[span.close] == UInt8(ascii: "}"), "span \(span) is not an object")
    }
    return 0
}

private func tapeKind(_ value: JSONValue) -> JSONTape.Kind {
    switch value {
    case .null: .null
    case .bool: .bool
    case .number: .number
    case .string: .string
    case .array: .array
    case .object: .object
    }
}
