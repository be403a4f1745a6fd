import Guardrails
import ReleaseSelection
import Randomness

/// The simulated clients, one flat array per field (struct of arrays, index = client): 19 bytes
/// a client of the simulator's own — bucket, model running, model being downloaded and when it
/// is ready (7), the events used since its last check (12) — plus the evaluator's tally (16
/// bytes, the same `ClientTally` its `ClientTable` keeps; numbered clients need no hash table).
/// The event queue adds its entries (8 bytes each, about 1 check per client plus one day's uses
/// pending at a time).
struct Fleet {
    enum Model: UInt8 {
        case baseline, challenger
    }

    /// SPEC §3's bucket of (release id, client id), computed once per client.
    private(set) var buckets: [UInt8]
    private var running: [Model]
    /// What the client is downloading, nil when nothing.
    private var downloading: [Model?]
    /// When the download ends (virtual seconds).
    private var readyAt: [UInt32]
    /// Events used and not delivered yet, per client and model (index 2 × client + model): the
    /// real client queues its events and sends them with its next check (`POST /latest`), so
    /// the server receives them then. A count of 65,535 drops further events, as a full queue does.
    private var queuedEvents: [UInt16]
    /// Their observations' sum (Float: a batch's few dozen values need no more).
    private var queuedTotals: [Float]
    /// The evaluator's state: nil until the client's first batch that counted.
    var tallies: [ClientTally?]

    /// Every client runs the baseline. Client ids are `<run seed>-<index>`, so each run draws
    /// fresh buckets even for the same release id.
    init(clients: Int, releaseID: String, runSeed: UInt64) {
        buckets = (0..<clients).map { UInt8(ReleaseSelector.bucket(releaseID: releaseID, clientID: "\(runSeed)-\($0)")) }
        running = Array(repeating: .baseline, count: clients)
        downloading = Array(repeating: nil, count: clients)
        readyAt = Array(repeating: 0, count: clients)
        queuedEvents = Array(repeating: 0, count: 2 * clients)
        queuedTotals = Array(repeating: 0, count: 2 * clients)
        tallies = Array(repeating: nil, count: clients)
    }

    /// Client `i` used `model`, observing `x`: queued until its next check.
    mutating func queue(_ i: Int, ran model: Model, observation x: Double) {
        let j = 2 * i + Int(model.rawValue)
        guard queuedEvents[j] < .max else { return }
        queuedEvents[j] += 1
        queuedTotals[j] += Float(x)
    }

    /// The events client `i` used on `model` since its last check, taken out of its queue.
    mutating func takeBatch(_ i: Int, ran model: Model) -> (events: UInt32, total: Double) {
        let j = 2 * i + Int(model.rawValue)
        defer { queuedEvents[j] = 0; queuedTotals[j] = 0 }
        return (UInt32(queuedEvents[j]), Double(queuedTotals[j]))
    }

    /// An update check at `seconds` answered `served`: the client starts downloading it unless it
    /// already runs or fetches it; told to keep what it runs, it drops a download under way.
    mutating func check(_ i: Int, at seconds: UInt32, served: Model, downloadSeconds: () -> Double) {
        let now = model(i, at: seconds)
        if served == now {
            downloading[i] = nil
        } else if downloading[i] != served {
            downloading[i] = served
            readyAt[i] = seconds &+ UInt32(min(downloadSeconds(), Double(UInt32.max - seconds)))
        }
    }

    /// The model client `i` runs at `seconds`, finishing a download that has ended by then.
    mutating func model(_ i: Int, at seconds: UInt32) -> Model {
        if let next = downloading[i], readyAt[i] <= seconds {
            running[i] = next
            downloading[i] = nil
        }
        return running[i]
    }
}
