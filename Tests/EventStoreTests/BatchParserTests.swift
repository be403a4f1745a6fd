@testable import EventStore
import JSONSupport
import Testing

@Suite struct BatchParserTests {
    static let ok = #""name":"n","ts":"2026-11-21T10:00:00Z""#

    /// (body, status, code, message) — every batch-level and event-level rule of SPEC §4.2.
    static let rejections: [(String, Int, String, String)] = [
        (#"{"batch_id":"b","events":[}"#, 400, "invalid_json", "unexpected character at byte 26"),
        (#"{"batch_id":"b","events":[],}"#, 400, "invalid_json", "expected a string key at byte 28"),
        (#"{"batch_id":"b","batch_id":"c","events":[]}"#, 400, "invalid_json", #"duplicate key "batch_id" at byte 16"#),
        (#"{"batch_id":"b","events":[]} x"#, 400, "invalid_json", "unexpected data after the JSON value at byte 29"),
        (#"{"batch_id":"b","events":[{"name":"\u0000","ts":01}]}"#, 400, "invalid_json", "expected ',' or '}' at byte 49"),
        (#"[1]"#, 400, "invalid_batch", "the body must be a JSON object"),
        (#"{"events":[]}"#, 400, "invalid_batch", "batch_id: required, 1-64 characters [A-Za-z0-9_-]"),
        (#"{"batch_id":"","events":[]}"#, 400, "invalid_batch", "batch_id: required, 1-64 characters [A-Za-z0-9_-]"),
        (#"{"batch_id":"a b","events":[]}"#, 400, "invalid_batch", "batch_id: required, 1-64 characters [A-Za-z0-9_-]"),
        (#"{"batch_id":"\#(String(repeating: "x", count: 65))","events":[]}"#, 400, "invalid_batch", "batch_id: required, 1-64 characters [A-Za-z0-9_-]"),
        (#"{"batch_id":7,"events":[]}"#, 400, "invalid_batch", "batch_id: required, 1-64 characters [A-Za-z0-9_-]"),
        (#"{"batch_id":"b","client_id":"","events":[]}"#, 400, "invalid_batch", "client_id: must be 1-128 printable ASCII characters"),
        (#"{"batch_id":"b","client_id":"é","events":[]}"#, 400, "invalid_batch", "client_id: must be 1-128 printable ASCII characters"),
        (#"{"batch_id":"b","client_id":"\#(String(repeating: "x", count: 129))","events":[]}"#, 400, "invalid_batch", "client_id: must be 1-128 printable ASCII characters"),
        (#"{"batch_id":"b"}"#, 400, "invalid_batch", "events: required, an array"),
        (#"{"batch_id":"b","events":{}}"#, 400, "invalid_batch", "events: required, an array"),
        (#"{"batch_id":"b","events":[{\#(ok)},{\#(ok)},{\#(ok)},{\#(ok)}]}"#, 413, "too_many_events", "4 events, at most 3 per batch"),
        (#"{"batch_id":"b","events":[{\#(ok)},7]}"#, 400, "invalid_event", "events[1]: must be an object"),
        (#"{"batch_id":"b","events":[{"ts":1}]}"#, 400, "invalid_event", "events[0].name: required"),
        (#"{"batch_id":"b","events":[{"name":"","ts":1}]}"#, 400, "invalid_event", "events[0].name: must be a string of 1-64 characters"),
        (#"{"batch_id":"b","events":[{"name":"\#(String(repeating: "n", count: 65))","ts":1}]}"#, 400, "invalid_event", "events[0].name: must be a string of 1-64 characters"),
        (#"{"batch_id":"b","events":[{"name":"n"}]}"#, 400, "invalid_event", "events[0].ts: required"),
        (#"{"batch_id":"b","events":[{"name":"n","ts":"yesterday"}]}"#, 400, "invalid_event", "events[0].ts: must be an RFC 3339 date-time string or epoch milliseconds"),
        (#"{"batch_id":"b","events":[{"name":"n","ts":"2026-02-29T10:00:00Z"}]}"#, 400, "invalid_event", "events[0].ts: must be an RFC 3339 date-time string or epoch milliseconds"),
        (#"{"batch_id":"b","events":[{"name":"n","ts":1.5}]}"#, 400, "invalid_event", "events[0].ts: must be an RFC 3339 date-time string or epoch milliseconds"),
        (#"{"batch_id":"b","events":[{"name":"n","ts":-1}]}"#, 400, "invalid_event", "events[0].ts: must be an RFC 3339 date-time string or epoch milliseconds"),
        (#"{"batch_id":"b","events":[{\#(ok),"model_id":3}]}"#, 400, "invalid_event", "events[0].model_id: must be a string"),
        (#"{"batch_id":"b","events":[{\#(ok),"outcome":"\#(String(repeating: "o", count: 65))"}]}"#, 400, "invalid_event", "events[0].outcome: must be a string of at most 64 characters"),
        (#"{"batch_id":"b","events":[{\#(ok),"value":"1"}]}"#, 400, "invalid_event", "events[0].value: must be a finite number"),
        (#"{"batch_id":"b","events":[{\#(ok),"value":1e999}]}"#, 400, "invalid_event", "events[0].value: must be a finite number"),
        // 2^1024 − 2^970, halfway between the largest double and 2^1024, rounds to infinity (docs/openapi.yaml FiniteNumber).
        (#"{"batch_id":"b","events":[{\#(ok),"value":-\#(roundingEdge)}]}"#, 400, "invalid_event", "events[0].value: must be a finite number"),
        (#"{"batch_id":"b","events":[{\#(ok),"props":[]}]}"#, 400, "invalid_event", "events[0].props: must be an object"),
        (#"{"batch_id":"b","events":[{\#(ok),"props":{\#((0..<33).map { #""k\#($0)":1"# }.joined(separator: ","))}}]}"#, 400, "invalid_event", "events[0].props: at most 32 keys"),
        (#"{"batch_id":"b","events":[{\#(ok),"props":{"a":null}}]}"#, 400, "invalid_event", "events[0].props.a: must be a string of at most 256 characters, a finite number or a bool"),
        (#"{"batch_id":"b","events":[{\#(ok),"props":{"a":"\#(String(repeating: "v", count: 257))"}}]}"#, 400, "invalid_event", "events[0].props.a: must be a string of at most 256 characters, a finite number or a bool"),
        (#"{"batch_id":"b","events":[{\#(ok),"props":{"a":{}}}]}"#, 400, "invalid_event", "events[0].props.a: must be a string of at most 256 characters, a finite number or a bool"),
        (#"{"batch_id":"b","events":[{\#(ok),"seq":1}]}"#, 400, "invalid_event", "events[0].seq: reserved for the server"),
    ]

    @Test(arguments: rejections.indices)
    func batch_rejectsEachRule_SPEC4_2(_ i: Int) {
        let (body, status, code, message) = Self.rejections[i]
        let error = #expect(throws: EventBatchError.self) { try parseBatch(bytes(body), max: 3) }
        #expect(error.map { [String($0.status), $0.code, $0.message] } == [String(status), code, message])
        if code == "invalid_event" || code == "too_many_events" { #expect(error?.eventCount ?? 0 > 0) }
    }

    @Test func batch_messageNamesFirstBadEventIndex_SPEC4_2() {
        var events = Array(repeating: "{\(Self.ok)}", count: 20)
        events[17] = #"{"name":"n","ts":"2026-13-01T00:00:00Z"}"#
        events[18] = #"{"ts":1}"#
        let error = #expect(throws: EventBatchError.self) {
            try parseBatch(bytes(#"{"batch_id":"b","events":[\#(events.joined(separator: ","))]}"#))
        }
        #expect(error?.message == "events[17].ts: must be an RFC 3339 date-time string or epoch milliseconds")
        #expect(error?.code == "invalid_event" && error?.status == 400 && error?.eventCount == 20)
    }

    /// The edge of what rounds to a finite double: 2^1024 − 2^970 (refused), and one below it (accepted).
    static let roundingEdge = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"

    @Test func batch_acceptsALiteralJustInsideTheFiniteEdge_SPEC4_2() throws {
        let inside = String(Self.roundingEdge.dropLast()) + "1"
        let batch = try parseBatch(bytes(#"{"batch_id":"b","events":[{\#(Self.ok),"value":-\#(inside),"props":{"k":\#(inside)}}]}"#))
        #expect(batch.eventCount == 1)
    }

    @Test func batch_acceptsEveryValidForm_SPEC4_2() throws {
        let body = #"{"batch_id":"A-z_09","events":[{"name":"n","ts":"2026-11-21t10:00:00.123+05:30"},{"name":"\#(String(repeating: "é", count: 64))","ts":1763719200000,"model_id":"m","outcome":"","value":-1.5e3,"props":{"s":"x","n":2,"b":false}},{"name":"n","ts":"2016-12-31T23:59:60Z"}],"extra":[1,{"a":null}]}"#
        let batch = try parseBatch(bytes(body))
        #expect(batch.eventCount == 3)
        #expect(batch.batchID == "A-z_09")
        #expect(batch.clientID == nil)
        #expect(try parseBatch(bytes(#"{"batch_id":"b","events":[]}"#)).eventCount == 0)
    }

    @Test func batch_clientIDFallsBackToQuery_SPEC4_2() throws {
        #expect(try parseBatch(bytes(#"{"batch_id":"b","events":[]}"#), query: "q").clientID == "q")
        #expect(try parseBatch(bytes(#"{"batch_id":"b","client_id":"body","events":[]}"#), query: "q").clientID == "body")
        #expect(try parseBatch(bytes(#"{"batch_id":"b","events":[]}"#), query: "q").dedupKey == DedupKey(clientID: "q", batchID: "b"))
    }

    @Test func batch_spliceKeepsUnknownFieldsVerbatim_SPEC5() throws {
        let body = "{\"batch_id\":\"b1\",\"client_id\":\"c\\\"q\",\"events\":[\n  {\"name\":\"n\",\n   \"ts\":1, \"x\":{\"deep\":[1.50,\"a\\u0041\"]} ,\"y\":  2E3 }\n]}"
        let batch = try parseBatch(bytes(body))
        var out: [UInt8] = []
        batch.appendLines(to: &out, receivedAt: "2026-11-22T21:00:00.000Z", sdk: "2.3", instance: "i\"1")
        let text = String(decoding: out, as: UTF8.self)
        #expect(text == #"{"name":"n",    "ts":1, "x":{"deep":[1.50,"a\u0041"]} ,"y":  2E3 ,"received_at":"2026-11-22T21:00:00.000Z","batch_id":"b1","client_id":"c\"q","sdk":"2.3","seq":0,"instance":"i\"1"}"# + "\n")
        let line = try JSONReader.parse(Array(out.dropLast()))
        #expect(line.value["client_id"]?.stringValue == "c\"q")
        #expect(line.value["x"]?["deep"] != nil)
        #expect(!out.dropLast().contains(0x0A))
    }

    @Test func batch_spliceNumbersSeqAndNullsMissingIDs_SPEC5() throws {
        let batch = try parseBatch(batchBody(id: "b", client: nil, count: 3))
        var out: [UInt8] = []
        batch.appendLines(to: &out, receivedAt: "2026-11-22T21:00:00.000Z", sdk: nil, instance: "i")
        let lines = out.split(separator: 0x0A)
        #expect(lines.count == 3)
        for (i, line) in lines.enumerated() {
            let v = try JSONReader.parse(Array(line)).value
            #expect(v["seq"]?.numberValue == Double(i))
            guard case .null? = v["client_id"], case .null? = v["sdk"] else { Issue.record("expected nulls"); continue }
        }
    }
}
