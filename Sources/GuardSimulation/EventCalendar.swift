/// The simulator's event queue, a calendar (time-bucketed) queue: virtual time is cut into
/// slots of one evaluation interval, each an unsorted array of 8-byte entries, sorted once
/// when its turn comes. Pushing is O(1) and popping O(log k) per entry for k entries in a slot,
/// where a binary heap of a million clients' next events would pay ~21 cache-missing levels
/// per operation. The engine only looks between slots, so a slot's order matters only within
/// each client, and sorting by time gives exactly that.
struct EventCalendar {
    enum Kind: UInt64 {
        /// An update check (SPEC §4.1): the client is told what to run.
        case check = 0
        /// A use of the app that produces one outcome event.
        case use = 1
    }

    /// One scheduled thing: time (seconds, high 32 bits), kind (bit 31), client (low 31 bits).
    /// Sorting the raw values sorts by time, then kind, then client: the same order every run.
    struct Entry: Comparable {
        let raw: UInt64

        init(_ kind: Kind, client: Int, at seconds: UInt32) {
            raw = UInt64(seconds) << 32 | kind.rawValue << 31 | UInt64(client)
        }

        var seconds: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
        var kind: Kind { raw >> 31 & 1 == 0 ? .check : .use }
        var client: Int { Int(raw & 0x7FFF_FFFF) }

        static func < (a: Entry, b: Entry) -> Bool { a.raw < b.raw }
    }

    let slotSeconds: UInt32
    private var slots: [[Entry]]

    /// A calendar of `seconds` of virtual time; anything scheduled later is dropped.
    init(seconds: Int, slotSeconds: Int) {
        self.slotSeconds = UInt32(slotSeconds)
        slots = Array(repeating: [], count: (seconds + slotSeconds - 1) / slotSeconds)
    }

    var slotCount: Int { slots.count }

    func slot(of seconds: UInt32) -> Int { Int(seconds / slotSeconds) }

    mutating func schedule(_ entry: Entry) {
        let i = slot(of: entry.seconds)
        if i < slots.count { slots[i].append(entry) }
    }

    /// Slot `i`'s entries in time order, leaving the slot empty (its memory freed: a slot is
    /// never filled again once its turn came, as nothing is scheduled in the past).
    mutating func take(slot i: Int) -> [Entry] {
        var entries: [Entry] = []
        swap(&entries, &slots[i])
        entries.sort()
        return entries
    }
}
