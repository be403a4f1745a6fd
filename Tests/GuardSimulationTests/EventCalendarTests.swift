import Testing
@testable import GuardSimulation

/// The calendar queue: entries come back per slot in time order, and nothing is kept beyond
/// the horizon.
@Suite struct EventCalendarTests {
    @Test func entry_roundTripsTimeKindAndClient() {
        let e = EventCalendar.Entry(.use, client: 0x7FFF_FFFF, at: 4_000_000_000)
        #expect(e.seconds == 4_000_000_000 && e.kind == .use && e.client == 0x7FFF_FFFF)
        let c = EventCalendar.Entry(.check, client: 12, at: 0)
        #expect(c.seconds == 0 && c.kind == .check && c.client == 12)
    }

    @Test func take_returnsTheSlotInTimeOrder_andDropsWhatIsBeyondTheHorizon() {
        var calendar = EventCalendar(seconds: 180, slotSeconds: 60)
        #expect(calendar.slotCount == 3)
        for (kind, client, t) in [(EventCalendar.Kind.use, 3, UInt32(70)), (.check, 1, 119), (.check, 2, 60), (.use, 9, 59), (.use, 4, 180), (.check, 5, 70)] {
            calendar.schedule(.init(kind, client: client, at: t))
        }
        #expect(calendar.take(slot: 0).map(\.client) == [9])
        // Same second: a check before a use, so a client checks before it uses what it was told.
        #expect(calendar.take(slot: 1).map(\.client) == [2, 5, 3, 1])
        #expect(calendar.take(slot: 1).isEmpty)
        #expect(calendar.take(slot: 2).isEmpty)
    }
}
