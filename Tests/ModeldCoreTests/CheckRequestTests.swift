import HTTPWire
import Testing
@testable import ModeldCore

/// The body rules of `POST /check` (SPEC §17.2), without a socket.
@Suite struct CheckRequestTests {
    private func parse(_ body: String) -> Result<CheckRequest, HTTPError> {
        do throws(HTTPError) { return .success(try CheckRequest.parse(Array(body.utf8))) } catch { return .failure(error) }
    }

    private func refusal(_ body: String) -> String? {
        guard case .failure(let e) = parse(body) else { return nil }
        return "\(e.status) \(e.code) \(e.message.prefix { $0 != ":" })"
    }

    @Test func valid() throws {
        let sha = String(repeating: "ab", count: 32)
        let r = try parse(#"{"client_id":"c 1","channels":["ranker","faces"],"installed":{"ranker":"\#(sha)","other":"\#(sha)"},"x":1}"#).get()
        #expect(r == CheckRequest(channels: ["ranker", "faces"], installed: ["ranker": sha, "other": sha], clientID: "c 1", hasBatch: false))
        #expect(try parse(#"{"channels":["a"],"batch_id":"b"}"#).get().hasBatch)
        #expect(try parse(#"{"channels":["a"],"events":[]}"#).get().hasBatch)
        let most = (0..<256).map { "\"c\($0)\"" }.joined(separator: ",")
        #expect(try parse(#"{"channels":[\#(most)]}"#).get().channels.count == 256)
    }

    @Test func refusals() {
        let many = (0...256).map { "\"c\($0)\"" }.joined(separator: ",")
        let table: [(String, String)] = [
            ("{}", "400 invalid_parameter channels"),
            (#"{"channels":[]}"#, "400 invalid_parameter channels"),
            (#"{"channels":"a"}"#, "400 invalid_parameter channels"),
            (#"{"channels":[\#(many)]}"#, "400 invalid_parameter channels"),
            (#"{"channels":["a","a"]}"#, "400 invalid_parameter channels"),
            (#"{"channels":["A"]}"#, "400 invalid_parameter channels"),
            (#"{"channels":["\#(String(repeating: "a", count: 33))"]}"#, "400 invalid_parameter channels"),
            (#"{"channels":[null]}"#, "400 invalid_parameter channels"),
            (#"{"channels":["a"],"installed":[]}"#, "400 invalid_parameter installed"),
            (#"{"channels":["a"],"installed":{"a":"ABC"}}"#, "400 invalid_parameter installed"),
            (#"{"channels":["a"],"installed":{"B":"\#(String(repeating: "0", count: 64))"}}"#, "400 invalid_parameter installed"),
            (#"{"channels":["a"],"client_id":""}"#, "400 invalid_parameter client_id"),
            (#"{"channels":["a"],"client_id":7}"#, "400 invalid_parameter client_id"),
            ("[]", "400 invalid_json the body must be a JSON object"),
            ("{", "400 invalid_json expected"),
        ]
        for (body, expected) in table {
            #expect(refusal(body)?.hasPrefix(expected.split(separator: " ").prefix(3).joined(separator: " ")) == true, "\(body): \(refusal(body) ?? "accepted")")
        }
    }
}
