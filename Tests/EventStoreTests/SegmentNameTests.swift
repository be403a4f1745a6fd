import Testing
@testable import EventStore

/// The one naming of segments and of their shipped keys (SPEC §5, §9.1), written and parsed
/// by the writer, `events ship` and `events export --from`.
struct SegmentNameTests {
    @Test(arguments: [
        (SegmentName(day: "2026-11-21", instance: "node-a", number: 1), "node-a-000001.jsonl", "logs/events/dt=2026-11-21/node-a-000001.jsonl.gz"),
        (SegmentName(day: "2026-01-02", instance: "a.b_c", number: 999_999), "a.b_c-999999.jsonl", "logs/events/dt=2026-01-02/a.b_c-999999.jsonl.gz"),
        (SegmentName(day: "2026-01-02", instance: "x-1-2", number: 1_234_567), "x-1-2-1234567.jsonl", "logs/events/dt=2026-01-02/x-1-2-1234567.jsonl.gz"),
    ])
    func fileNameAndBucketKey_roundTrip(segment: SegmentName, fileName: String, key: String) {
        #expect(segment.fileName == fileName)
        #expect(segment.relativePath == "\(segment.day)/\(fileName)")
        #expect(segment.bucketKey(prefix: "logs") == key)
        #expect(SegmentName(day: segment.day, fileName: fileName) == segment)
        #expect(SegmentName(bucketKey: key, prefix: "logs") == segment)
        #expect(SegmentName(bucketKey: segment.bucketKey(prefix: ""), prefix: "") == segment)
        #expect(segment.bucketKey(prefix: "").hasPrefix("events/dt="))
    }

    @Test(arguments: [
        "node-a-00001.jsonl",      // fewer than six digits
        "node-a-0000001.jsonl",    // not the name the writer gives number 1
        "node-a-000001.jsonl.idx", // the segment's index
        "node-a-+00001.jsonl", "-000001.jsonl", "node a-000001.jsonl", "node-a.lock", "000001.jsonl",
    ])
    func fileName_othersAreNotSegments(name: String) {
        #expect(SegmentName(day: "2026-11-21", fileName: name) == nil)
    }

    @Test func bucketKey_othersAreNotSegments() {
        #expect(SegmentName(day: "21-11-2026", fileName: "a-000001.jsonl") == nil)
        for key in ["logs/events/dt=2026-11-21/a-000001.jsonl", "logs/events/dt=2026-11-21/notes.txt.gz",
                    "logs/events/dt=2026-13-01/a-000001.jsonl.gz", "other/events/dt=2026-11-21/a-000001.jsonl.gz",
                    "logs/events/dt=2026-11-21/x/a-000001.jsonl.gz", "logs/events/dt=2026-11-21a-000001.jsonl.gz"] {
            #expect(SegmentName(bucketKey: key, prefix: "logs") == nil, "\(key)")
        }
    }

    /// The writer names its files through the same type.
    @Test func layout_segmentPath_isTheNamesRelativePath() {
        let layout = SegmentLayout(root: "/d/events", instance: "n1")
        #expect(layout.segmentPath(day: "2026-11-21", number: 7) == "/d/events/2026-11-21/n1-000007.jsonl")
        #expect(layout.lockPath == "/d/events/n1.lock")
    }
}
