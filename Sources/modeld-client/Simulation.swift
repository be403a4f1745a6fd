import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ModeldClient

/// Many simulated installs against one modeld (SPEC §13 `simulate`): each has its own client id,
/// polls `/latest` and, once it runs a model, posts one outcome event per check (`POST /latest`
/// with a fresh batch id) whose outcome is `success` with the probability given for that model,
/// else `failure` — the per-client data a guarded rollout (§11) evaluates.
struct Simulation: Sendable {
    struct Plan: Sendable {
        /// `/latest` of a modeld, or with `rules` the channel's rules under this URL.
        var server: URL
        /// Rules mode (SPEC §9.2): evaluate the channel's rules locally, read from `server`
        /// (a bucket), and post events to `events`.
        var rules: RulesFeed?
        var sdk: String
        var channel: String
        var clients: Int
        var duration: TimeInterval
        /// Update checks per second over all clients.
        var rate: Double
        var eventName: String
        var probabilities: [String: Double]
        var defaultProbability: Double
    }

    struct Report: Encodable {
        var clients = 0
        var seconds = 0.0
        var checks = 0
        var checksPerSecond = 0.0
        var events = 0
        var eventsPerSecond = 0.0
        var errors = 0
        var models: [String: ModelCount] = [:]

        struct ModelCount: Encodable {
            var clients = 0
            var events = 0
            var successes = 0
        }

        enum CodingKeys: String, CodingKey {
            case clients, seconds, checks, events, errors, models
            case checksPerSecond = "checks_per_second", eventsPerSecond = "events_per_second"
        }
    }

    let plan: Plan
    let session: URLSession

    init(plan: Plan) {
        self.plan = plan
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    func run() async -> Report {
        let run = UUID().uuidString.prefix(8).lowercased()
        let state = Tally(clients: plan.clients)
        let start = Date()
        let workers = min(plan.clients, 64)
        let schedule = Schedule(rate: plan.rate, duration: plan.duration, clients: plan.clients, workers: workers)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for (index, client) in schedule.checks(worker: worker) {
                        let wait = start.addingTimeInterval(schedule.offset(index)).timeIntervalSinceNow
                        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                        if Task.isCancelled { return }
                        let model = state.withLock { $0.models[client] }
                        let outcome = if let rules = plan.rules {
                            await checkRules(rules, clientID: "sim-\(run)-\(client)", model: model)
                        } else {
                            await check(clientID: "sim-\(run)-\(client)", model: model)
                        }
                        state.withLock { s in
                            s.report.checks += 1
                            guard let outcome else { s.report.errors += 1; return }
                            if let sent = outcome.event, let model {
                                s.report.events += 1
                                s.report.models[model, default: .init()].events += 1
                                if sent { s.report.models[model, default: .init()].successes += 1 }
                            }
                            if let now = outcome.model, now != s.models[client] {
                                s.report.models[now, default: .init()].clients += 1
                                s.models[client] = now
                            }
                        }
                    }
                }
            }
        }
        var report = state.withLock { $0.report }
        session.finishTasksAndInvalidate()
        report.clients = plan.clients
        report.seconds = Date().timeIntervalSince(start)
        report.checksPerSecond = Double(report.checks) / report.seconds
        report.eventsPerSecond = Double(report.events) / report.seconds
        return report
    }

    /// The checks of a run (pure): `rate × duration` of them, check i due at `i / rate` seconds
    /// and made by worker `i mod workers`, which owns the clients `≡ worker (mod workers)` in
    /// turn (so no client is checked by two workers at once). Every scheduled check is made: a
    /// worker that fell behind (a slow server, a loaded machine) makes its late ones at once,
    /// so a run's counts do not depend on how fast the machine is, only its `seconds` do.
    struct Schedule: Sendable {
        let rate: Double
        let duration: TimeInterval
        let clients: Int
        let workers: Int

        /// Clamped so an absurd `--rate` or `--duration` cannot overflow.
        var count: Int { Int(min(rate * duration, Double(Int32.max)).rounded(.up)) }

        func offset(_ check: Int) -> TimeInterval { Double(check) / rate }

        /// Worker `worker`'s checks in order, as (check index, client index), computed lazily.
        func checks(worker: Int) -> some Sequence<(check: Int, client: Int)> {
            let owned = (clients - 1 - worker) / workers + 1   // clients ≡ worker (mod workers)
            return stride(from: worker, to: count, by: workers).enumerated().lazy.map { k, check in
                (check: check, client: worker + (k % owned) * workers)
            }
        }
    }

    /// One update check; with a model, one event rides along. nil on any failure.
    func check(clientID: String, model: String?) async -> (model: String?, event: Bool?)? {
        var components = URLComponents(url: plan.server.appendingPathComponent("latest"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "sdk", value: plan.sdk), URLQueryItem(name: "channel", value: plan.channel),
                                 URLQueryItem(name: "client_id", value: clientID)]
        var request = URLRequest(url: components.url!)
        var success: Bool?
        if let model { success = attachEvent(to: &request, clientID: clientID, model: model) }
        // A failed request is counted as a failure by the caller (nil), which is what a load demo reports.
        guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        switch http.statusCode {
        case 200:
            let id = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String  // no id: the client keeps no model
            return (id, success)
        case 404: return (nil, success)
        default: return nil
        }
    }
}

extension Simulation {
    /// Makes `request` a POST carrying one event about `model` (one fresh batch); answers
    /// whether its outcome is `success`.
    func attachEvent(to request: inout URLRequest, clientID: String, model: String) -> Bool {
        let won = Double.random(in: 0..<1) < (plan.probabilities[model] ?? plan.defaultProbability)
        let event: [String: Any] = ["name": plan.eventName, "ts": Int64(Date().timeIntervalSince1970 * 1000),
                                    "model_id": model, "outcome": won ? "success" : "failure"]
        let body: [String: Any] = ["batch_id": UUID().uuidString.lowercased(), "client_id": clientID, "events": [event]]
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: body)  // strings and numbers only: cannot fail
        return won
    }
}

/// The shared counters of all workers, and which model each simulated client runs.
private final class Tally: Sendable {
    struct State {
        var report = Simulation.Report()
        var models: [String?]
    }
    private let state: Locked<State>

    init(clients: Int) { state = Locked(State(models: [String?](repeating: nil, count: clients))) }

    func withLock<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
}
