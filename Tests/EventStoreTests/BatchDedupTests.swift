import EventStore
import Testing

/// The read-side dedup's memory (SPEC §5): unbounded for one export, a window of days for the
/// guard's long-running tail.
@Suite struct BatchDedupTests {
    /// Reads one batch of two events from a segment of `day`; true when it was a repeat.
    static func read(_ dedup: inout BatchDedup, _ batch: String, day: String?) -> Bool {
        dedup.startSegment(day: day)
        let first = dedup.isRepeat(clientID: "c", batchID: batch, seq: 0)
        let second = dedup.isRepeat(clientID: "c", batchID: batch, seq: 1)
        #expect(second == first, "a batch's events share its answer")
        return first
    }

    @Test func window48h_keepsTwoDaysAfterTheFirstCopysDay_thenCountsItAgain() {
        var dedup = BatchDedup(windowHours: 48)
        func repeated(_ batch: String, _ day: String) -> Bool { Self.read(&dedup, batch, day: day) }
        #expect(!repeated("b1", "2026-12-01"))
        #expect(repeated("b1", "2026-12-02"))
        #expect(repeated("b1", "2026-12-03"), "two days after its day: inside 48 h of any time of it")
        #expect(!repeated("b2", "2026-12-03"))
        #expect(dedup.count == 2)
        // Day 4 drops day 1's keys (b1), keeps day 3's (b2).
        #expect(!repeated("b1", "2026-12-04"), "out of the window: counted again, as the write side stores it")
        #expect(repeated("b2", "2026-12-04"))
        #expect(dedup.count == 2)
    }

    @Test func aDayReadLate_goesInOrder_andLeavesWithItsWindow() {
        var dedup = BatchDedup(windowHours: 24)
        func repeated(_ batch: String, _ day: String) -> Bool { Self.read(&dedup, batch, day: day) }
        #expect(!repeated("b1", "2026-12-05"))
        #expect(!repeated("late", "2026-12-04"), "an older segment shipped late")
        #expect(repeated("late", "2026-12-05"))
        #expect(repeated("b1", "2026-12-06"), "day 5 stays one day after it")
        #expect(!repeated("late", "2026-12-06"), "day 4 left when day 6 came")
        // A month later, the keys of day 6 and before are gone: memory follows the window.
        #expect(!repeated("b1", "2027-01-06"))
        #expect(dedup.count == 1)
    }

    @Test func unbounded_keepsEveryKeyOfEveryDay() {
        var dedup = BatchDedup()
        func repeated(_ client: String, _ batch: String, _ day: String?) -> Bool {
            dedup.startSegment(day: day)
            return dedup.isRepeat(clientID: client, batchID: batch, seq: 0)
        }
        #expect(!repeated("c", "b1", "2026-01-01"))
        #expect(repeated("c", "b1", "2026-12-31"))
        #expect(repeated("c", "b1", nil))
        #expect(!repeated("other", "b1", nil), "the key is the client's and the batch's")
        #expect(dedup.count == 2)
    }
}
