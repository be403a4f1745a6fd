import Testing
@testable import EgressCost

/// The measured transfer ratio (SPEC §16, docs/decisions/cost.md): what each answer stands for.
struct TransferRatioMeterTests {
    static let objects: [String: TransferRatioMeter.Object] = [
        "a.bin": .file, "a.bin.chunks": .chunkList,
        "a.bin.pack": .coded(size: 800, fileSize: 1000), "a.bin.from-b.patch": .coded(size: 300, fileSize: 1000),
    ]

    static func record(_ path: String, _ status: Int = 200, _ bytes: Int64, method: String = "GET", route: String = "models") -> EgressLogRecord {
        EgressLogRecord(ts: "2026-11-27T10:00:00.000Z", method: method, path: path, route: route, status: status, bytes: bytes)
    }

    /// Feeds `records` and answers which ones counted.
    static func feed(_ meter: inout TransferRatioMeter, _ records: [EgressLogRecord]) -> [Bool] {
        records.map { meter.add($0) }
    }

    @Test func packsAndPatchesStandForTheirFile_filesAndDeltaRangesForThemselves_chunkListsForNothing() throws {
        var meter = TransferRatioMeter(objects: Self.objects)
        let counted = Self.feed(&meter, [
            Self.record("/models/a.bin", 200, 1000),             // a full download
            Self.record("/models/a.bin.pack", 200, 800),         // a whole pack: 1000
            Self.record("/models/a.bin.from-b.patch", 200, 100), // a patch cut short…
            Self.record("/models/a.bin.from-b.patch", 206, 200), // … and resumed: 1000 together
            Self.record("/models/a.bin", 206, 250),              // a delta's ranges (or a resume)
            Self.record("/models/a.bin.chunks", 200, 40),
        ])
        #expect(counted == [true, true, true, true, true, true])
        #expect(meter.sent == TransferRatioMeter.Sent(files: 1250, coded: 1100, chunkLists: 40))
        #expect(meter.fullFileBytes == 1000 + 1000 + 1000 + 250)
        #expect(meter.ratio?.description == "0.735385")   // 2390 / 3250
    }

    @Test func onlyBodiesOfModelAnswersCount_unknownNamesAside() throws {
        var meter = TransferRatioMeter(objects: Self.objects)
        let counted = Self.feed(&meter, [
            Self.record("/models/a.bin", 304, 0),
            Self.record("/models/a.bin.pack", 200, 0, method: "HEAD"),
            Self.record("/latest", 200, 300, route: "latest"),
            Self.record("/models/a.bin", 404, 50),
            Self.record("/models/gone.bin", 200, 70),
        ])
        #expect(counted == [false, false, false, false, false])
        #expect(meter.unknown == TrafficCounter(bytes: 70, requests: 1))
        #expect(meter.sent == TransferRatioMeter.Sent() && meter.fullFileBytes == 0 && meter.ratio == nil)
    }

    @Test func chunkListsWithoutDownloads_haveNoRatio() {
        var meter = TransferRatioMeter(objects: Self.objects)
        _ = Self.feed(&meter, [Self.record("/models/a.bin.chunks", 200, 40), Self.record("/models/a.bin", 206, 10)])
        #expect(meter.fullFileBytes == 10 && meter.ratio == nil)
    }

    @Test func fullDownloadsOnly_giveOne() {
        var meter = TransferRatioMeter(objects: Self.objects)
        _ = Self.feed(&meter, [Self.record("/models/a.bin", 200, 1000)])
        #expect(meter.ratio == .all)
    }
}
