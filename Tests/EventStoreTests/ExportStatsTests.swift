#if canImport(Glibc)
import Glibc
#endif
import DurableFiles
@testable import EventStore
import JSONSupport
import Testing

@Suite(.serialized) struct ExportStatsTests {
    /// A hand-written stored line.
    static func line(_ batch: String, seq: Int, client: String = "c", day: String = "2026-11-21", outcome: String = "ok") -> String {
        #"{"name":"n","ts":1,"outcome":"\#(outcome)","received_at":"\#(day)T10:00:00.000Z","batch_id":"\#(batch)","client_id":"\#(client)","sdk":null,"seq":\#(seq),"instance":"x"}"# + "\n"
    }

    static func writeSegment(_ root: String, day: String, name: String, _ lines: [String]) {
        _ = try? DurableFile.makeDirectories("\(root)/\(day)")
        let fd = open("\(root)/\(day)/\(name)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = Array(lines.joined().utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func export(_ root: String, since: String? = nil, until: String? = nil) throws -> ([String], EventExport.Summary) {
        var out: [String] = []
        let summary = try EventExport(directory: root, since: since, until: until).forEach { event in
            out.append("\(event.batchID!)/\(event.seq!)")
        }
        return (out, summary)
    }

    @Test func export_dropsRepeatedBatchesAcrossInstancesAndSegments_SPEC5() throws {
        let root = makeTempDirectory()
        defer { removeTree(root) }
        Self.writeSegment(root, day: "2026-11-21", name: "a-000001.jsonl", [
            Self.line("X", seq: 0), Self.line("X", seq: 1), Self.line("Y", seq: 0),
            // The same batch again right after itself (a retry after a failed commit): seq restarts at 0.
            Self.line("Y", seq: 0),
            Self.line("Z", seq: 0, client: "other"), Self.line("X", seq: 0), Self.line("X", seq: 1),
        ])
        // Another replica stored X too, and a torn final line after it.
        Self.writeSegment(root, day: "2026-11-21", name: "b-000001.jsonl", [
            Self.line("X", seq: 0), Self.line("X", seq: 1), Self.line("W", seq: 0), #"{"name":"n","ts":1,"rec"#,
        ])
        let (events, summary) = try Self.export(root)
        #expect(events == ["X/0", "X/1", "Y/0", "Z/0", "W/0"])
        #expect(summary.duplicateEvents == 5)
        #expect(summary.unreadableLines == 0)
    }

    @Test func export_filtersByDay_SPEC7_3() throws {
        let root = makeTempDirectory()
        defer { removeTree(root) }
        for (i, day) in ["2026-11-20", "2026-11-21", "2026-11-22"].enumerated() {
            Self.writeSegment(root, day: day, name: "a-00000\(i + 1).jsonl", [Self.line("B\(i)", seq: 0, day: day)])
        }
        #expect(try Self.export(root, since: "2026-11-21").0 == ["B1/0", "B2/0"])
        #expect(try Self.export(root, until: "2026-11-21").0 == ["B0/0", "B1/0"])
        #expect(try Self.export(root, since: "2026-11-21", until: "2026-11-21").0 == ["B1/0"])
    }

    @Test func export_readsWhatTheStoreWrote_SPEC5() throws {
        let root = makeTempDirectory()
        defer { removeTree(root) }
        // Both replicas running: neither has sealed an index the other could read, so both store "shared".
        let stores = [try openStore(root, instance: "i1"), try openStore(root, instance: "i2")]
        for (i, store) in stores.enumerated() {
            #expect(store.submitAndWait(try parseBatch(batchBody(id: "shared", count: 3)), sdk: "2.3") == .accepted(3))
            #expect(store.submitAndWait(try parseBatch(batchBody(id: "own-i\(i + 1)", count: 1)), sdk: "2.3") == .accepted(1))
        }
        for store in stores { store.close() }
        let (events, _) = try Self.export(root)
        #expect(events == ["shared/0", "shared/1", "shared/2", "own-i1/0", "own-i2/0"])
    }

    @Test func export_csvQuotesPerRFC4180_SPEC7_3() throws {
        let line = #"{"name":"a,b","ts":1700000000000,"model_id":"m","outcome":"say \"hi\"","value":1.50,"props":{"k":"v"},"received_at":"2026-11-21T10:00:00.000Z","batch_id":"B","client_id":"c","sdk":null,"seq":0,"instance":"x"}"#
        let event = try #require(StoredEvent(line: bytes(line)[...]))
        #expect(EventCSV.header == "received_at,instance,client_id,batch_id,seq,sdk,name,ts,model_id,outcome,value,props\r\n")
        #expect(EventCSV.row(event) == #"2026-11-21T10:00:00.000Z,x,c,B,0,,"a,b",1700000000000,m,"say ""hi""",1.50,"{""k"":""v""}""# + "\r\n")
    }

    /// Reference values: python3 -c "import math;z=1.959964;w=lambda k,n:((k/n+z*z/(2*n))/(1+z*z/n)-z/(1+z*z/n)*math.sqrt(k/n*(1-k/n)/n+z*z/(4*n*n)),(k/n+z*z/(2*n))/(1+z*z/n)+z/(1+z*z/n)*math.sqrt(k/n*(1-k/n)/n+z*z/(4*n*n)));print(w(30,100),w(0,10),w(10,10),w(1,3))"
    @Test(arguments: [
        (30, 100, 0.21894885238515718, 0.39584854712244144),
        (0, 10, 0.0, 0.2775328030260577),
        (10, 10, 0.7224671969739421, 0.9999999999999999),
        (1, 3, 0.06149194402093083, 0.7923404011921756),
    ])
    func stats_wilsonIntervalMatchesReference_SPEC7_3(_ k: Int, _ n: Int, _ low: Double, _ high: Double) {
        let w = OutcomeStats.wilson(successes: k, trials: n)
        #expect(abs(w.low - low) < 1e-12)
        #expect(abs(w.high - high) < 1e-12)
    }

    @Test func stats_ratesPerModelAmongNamedEvents_SPEC7_3() throws {
        var stats = OutcomeStats(name: "upsell")
        func event(_ json: String) throws -> JSONValue { try JSONReader.parse(bytes(json)).value }
        for _ in 0..<30 { stats.add(try event(#"{"name":"upsell","model_id":"m1","outcome":"purchased"}"#)) }
        for _ in 0..<70 { stats.add(try event(#"{"name":"upsell","model_id":"m1","outcome":"dismissed"}"#)) }
        for _ in 0..<10 { stats.add(try event(#"{"name":"upsell","model_id":"m2"}"#)) }
        for _ in 0..<5 { stats.add(try event(#"{"name":"other","model_id":"m1","outcome":"purchased"}"#)) }
        let groups = stats.groups
        #expect(groups.map(\.key) == ["m1", "m2"])
        #expect(groups[0].events == 100)
        #expect(groups[0].outcomes.map(\.value) == ["dismissed", "purchased"])
        let purchased = groups[0].outcomes[1]
        #expect(purchased.count == 30 && purchased.rate == 0.3)
        #expect(abs(purchased.low - 0.21894885238515718) < 1e-12)
        let none = groups[1].outcomes[0]
        #expect(none.value == "(none)" && none.count == 10 && none.rate == 1)
        #expect(abs(none.low - 0.7224671969739421) < 1e-12)
    }
}
