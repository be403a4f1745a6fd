#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension GuardStatusDocument {
    /// The §11.5 guard status document as a value: what `GuardStatusDocument` writes and what
    /// `modelctl experiment status`/`report`/`show` read. One set of key names for both sides; a key
    /// the SPEC always writes must be there (a renamed or lost key is an error, never a "-"), and
    /// only what is legitimately null (`delta`/`bound` before both arms have a client, a mean of an
    /// empty arm, `stage_started_at`, `next_stage`) or absent (`evaluated_at` before the first
    /// evaluation, the figures of an override record written without a plan) is optional.
    public struct Content: Codable, Equatable, Sendable {
        public struct Arm: Codable, Equatable, Sendable {
            public var clients: Int
            public var mean: Double?
            public var variance: Double?

            enum CodingKeys: String, CodingKey { case clients, mean, variance }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                clients = try c.decode(Int.self, forKey: .clients)
                mean = try c.decode(Double?.self, forKey: .mean)
                variance = try c.decode(Double?.self, forKey: .variance)
            }
        }

        /// The SRM test's figures (§11.2 v5): its clients per arm, p-value and settled cohorts.
        public struct SRM: Codable, Equatable, Sendable {
            public var treatment: Int
            public var control: Int
            public var pValue: Double?
            public var cohorts: [Int]

            enum CodingKeys: String, CodingKey { case treatment, control, pValue = "p_value", cohorts }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                treatment = try c.decode(Int.self, forKey: .treatment)
                control = try c.decode(Int.self, forKey: .control)
                pValue = try c.decode(Double?.self, forKey: .pValue)
                cohorts = try c.decode([Int].self, forKey: .cohorts)
            }
        }

        /// One line of `data/guard-decisions.jsonl`.
        public struct Decision: Codable, Equatable, Sendable {
            public var ts: String
            public var release: String
            public var rule: String
            public var stage: Int
            public var nextStage: Int?
            public var arms: [String: Arm]?
            public var delta: Double?
            public var bound: Double?

            enum CodingKeys: String, CodingKey {
                case ts, release, rule, stage, nextStage = "next_stage", arms, delta, bound
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                ts = try c.decode(String.self, forKey: .ts)
                release = try c.decode(String.self, forKey: .release)
                rule = try c.decode(String.self, forKey: .rule)
                stage = try c.decode(Int.self, forKey: .stage)
                nextStage = try c.decode(Int?.self, forKey: .nextStage)
                arms = try c.decodeIfPresent([String: Arm].self, forKey: .arms)
                delta = try c.decodeIfPresent(Double.self, forKey: .delta)
                bound = try c.decodeIfPresent(Double.self, forKey: .bound)
            }
        }

        public var release: String
        public var status: String
        public var stage: Int
        public var stageStartedAt: String?
        public var evaluatedAt: String?
        public var arms: [String: Arm]
        public var delta: Double?
        public var bound: Double?
        public var alpha: Double?
        public var tuningClients: Int
        public var pendingClients: Int
        /// SPEC §18: the newest event time the evaluator read, per storing instance (absent
        /// from a state file written before v6, or not evaluated yet).
        public var eventsRead: [String: String]?
        /// Absent from a state file written before v5.
        public var srm: SRM?
        public var decisions: [Decision]

        enum CodingKeys: String, CodingKey {
            case release, status, stage, stageStartedAt = "stage_started_at", evaluatedAt = "evaluated_at", arms, delta, bound, alpha
            case tuningClients = "tuning_clients", pendingClients = "pending_clients", eventsRead = "events_read", srm, decisions
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            release = try c.decode(String.self, forKey: .release)
            status = try c.decode(String.self, forKey: .status)
            stage = try c.decode(Int.self, forKey: .stage)
            stageStartedAt = try c.decode(String?.self, forKey: .stageStartedAt)
            evaluatedAt = try c.decodeIfPresent(String.self, forKey: .evaluatedAt)
            arms = try c.decode([String: Arm].self, forKey: .arms)
            for name in ["treatment", "control"] where arms[name] == nil {
                throw DecodingError.keyNotFound(CodingKeys.arms, .init(codingPath: [CodingKeys.arms], debugDescription: "arms.\(name) is missing"))
            }
            delta = try c.decode(Double?.self, forKey: .delta)
            bound = try c.decode(Double?.self, forKey: .bound)
            alpha = try c.decode(Double?.self, forKey: .alpha)
            tuningClients = try c.decode(Int.self, forKey: .tuningClients)
            pendingClients = try c.decode(Int.self, forKey: .pendingClients)
            eventsRead = try c.decodeIfPresent([String: String].self, forKey: .eventsRead)
            srm = try c.decodeIfPresent(SRM.self, forKey: .srm)
            decisions = try c.decode([Decision].self, forKey: .decisions)
        }

        public struct Invalid: Error, Equatable {
            public var message: String
        }

        /// Decodes a document, or says which key is missing or of the wrong type.
        public init(json: [UInt8]) throws(Invalid) {
            do { self = try JSONDecoder().decode(Self.self, from: Data(json)) } catch let error as DecodingError {
                throw Invalid(message: Self.describe(error))
            } catch {
                throw Invalid(message: "\(error)")
            }
        }

        private static func describe(_ error: DecodingError) -> String {
            func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
                (keys + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            }
            switch error {
            case .keyNotFound(let key, let context):
                return context.debugDescription.hasPrefix("arms.") ? context.debugDescription : "missing key \(path(context.codingPath, key))"
            case .valueNotFound(_, let context): return "\(path(context.codingPath)) is null"
            case .typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(type)"
            case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
            @unknown default: return "\(error)"
            }
        }
    }
}
