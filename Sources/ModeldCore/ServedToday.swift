import Console
import Synchronization

/// Requests and body bytes of each release's files served since UTC midnight, for the console's
/// releases view (SPEC §15). Counts this instance only, from the same summaries as the access
/// log; only model-file exchanges (those labelled with a release) touch it.
final class ServedToday: Sendable {
    private struct Day { var number: Int64; var counts: [String: ReleasesView.Served] }
    private let day = Mutex(Day(number: 0, counts: [:]))

    func record(release: String, bytes: Int64, nowMillis: Int64) {
        let today = nowMillis / 86_400_000
        day.withLock { d in
            if d.number != today { d = Day(number: today, counts: [:]) }
            d.counts[release, default: .init()].requests += 1
            d.counts[release, default: .init()].bytes += bytes
        }
    }

    func counts(nowMillis: Int64) -> [String: ReleasesView.Served] {
        day.withLock { $0.number == nowMillis / 86_400_000 ? $0.counts : [:] }
    }
}
