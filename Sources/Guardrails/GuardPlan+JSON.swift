#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The `guard` object as JSON (SPEC §11.1): decoded strictly (an unknown key is an operator's
// typo, never a silent default), validated by GuardPlan's initialisers, encoded canonically.
extension GuardPlan {
    /// The guard as JSON holds it: every field optional until `GuardPlan` validates it. Decoding
    /// already refuses unknown keys and wrong types with a `GuardPlanError` naming the field, so
    /// a release DTO can embed it (`var guard: GuardPlan.Document?`) and keep those messages.
    public struct Document: Codable, Hashable, Sendable {
        public struct Metric: Codable, Hashable, Sendable {
            public var name: String?
            public var outcome: String?
            public var kind: String?
            public var direction: String?

            enum CodingKeys: String, CodingKey, CaseIterable {
                case name, outcome, kind, direction
            }

            public init(name: String? = nil, outcome: String? = nil, kind: String? = nil, direction: String? = nil) {
                self.name = name
                self.outcome = outcome
                self.kind = kind
                self.direction = direction
            }

            public init(from decoder: Decoder) throws {
                let c = try strictContainer(decoder, CodingKeys.self, "guard.metric")
                func text(_ key: CodingKeys) throws -> String? { try field(c, key, "a string", "guard.metric") }
                name = try text(.name)
                outcome = try text(.outcome)
                kind = try text(.kind)
                direction = try text(.direction)
            }
        }

        public var metric: Metric?
        public var stages: [Int]?
        public var minStageSeconds: Int?
        public var minClientsPerArm: Int?
        public var alpha: Double?
        public var tuningClients: Int?
        public var regressionMargin: Double?
        public var goal: String?
        public var maxSeconds: Int?
        public var noDataSeconds: Int?
        public var onSRM: String?
        public var settleSeconds: Int?
        public var status: String?
        public var startedAt: String?
        public var stageStartedAt: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case metric, stages, alpha, goal, status
            case minStageSeconds = "min_stage_seconds", minClientsPerArm = "min_clients_per_arm"
            case tuningClients = "tuning_clients", regressionMargin = "regression_margin"
            case maxSeconds = "max_seconds", noDataSeconds = "no_data_seconds", onSRM = "on_srm", settleSeconds = "settle_seconds"
            case startedAt = "started_at", stageStartedAt = "stage_started_at"
        }

        public init() {}

        public init(from decoder: Decoder) throws {
            let c = try strictContainer(decoder, CodingKeys.self, "guard")
            func value<T: Decodable>(_ key: CodingKeys, _ what: String) throws -> T? { try field(c, key, what, "guard") }
            metric = try value(.metric, "an object")
            stages = try integers(c, .stages, "guard")
            minStageSeconds = try value(.minStageSeconds, "an integer")
            minClientsPerArm = try value(.minClientsPerArm, "an integer")
            alpha = try value(.alpha, "a number")
            tuningClients = try value(.tuningClients, "an integer")
            regressionMargin = try value(.regressionMargin, "a number")
            goal = try value(.goal, "a string")
            maxSeconds = try value(.maxSeconds, "an integer")
            noDataSeconds = try value(.noDataSeconds, "an integer")
            onSRM = try value(.onSRM, "a string")
            settleSeconds = try value(.settleSeconds, "an integer")
            status = try value(.status, "a string")
            startedAt = try value(.startedAt, "a string")
            stageStartedAt = try value(.stageStartedAt, "a string")
        }
    }

    /// A guard as an operator sends it (the `guard` parameter of `POST /admin/models`, the
    /// `guard` of a PATCH body, `modelctl publish --guard`). `status` and the times are the
    /// server's to set, so they are refused rather than ignored; the plan starts `collecting`.
    public init(json: [UInt8]) throws(GuardPlanError) {
        try self.init(operatorInput: Self.decodeDocument(json))
    }

    public init(operatorInput document: Document) throws(GuardPlanError) {
        for (value, key) in [(document.status, "status"), (document.startedAt, "started_at"), (document.stageStartedAt, "stage_started_at")]
        where value != nil {
            throw GuardPlanError("guard.\(key)", "is set by the server, not in a published guard")
        }
        try self.init(stored: document, parseTime: { _ in nil })
    }

    /// A guard as `catalog.json` stores it, runtime fields included; `parseTime` turns the
    /// stored time text (RFC 3339, the catalog's own format) into milliseconds since the epoch.
    public init(stored d: Document, parseTime: (String) -> Int64?) throws(GuardPlanError) {
        guard let m = d.metric else { throw GuardPlanError("guard.metric", "required") }
        guard let name = m.name else { throw GuardPlanError("guard.metric.name", "required") }
        let metric = try Metric(
            name: name, outcome: m.outcome,
            kind: try Self.choice(m.kind, .rate, "guard.metric.kind"),
            direction: try Self.choice(m.direction, .higherIsBetter, "guard.metric.direction"))
        func time(_ text: String?, _ field: String) throws(GuardPlanError) -> Int64? {
            guard let text else { return nil }
            guard let t = parseTime(text) else { throw GuardPlanError(field, "is not a valid time") }
            return t
        }
        let runtime = Runtime(
            status: try Self.choice(d.status, .collecting, "guard.status"),
            startedAt: try time(d.startedAt, "guard.started_at"),
            stageStartedAt: try time(d.stageStartedAt, "guard.stage_started_at"))
        try self.init(
            metric: metric, stages: d.stages ?? Self.defaultStages,
            minStageSeconds: d.minStageSeconds ?? Self.defaultMinStageSeconds,
            minClientsPerArm: d.minClientsPerArm ?? Self.defaultMinClientsPerArm,
            alpha: d.alpha ?? Self.defaultAlpha, tuningClients: d.tuningClients ?? Self.defaultTuningClients,
            regressionMargin: d.regressionMargin ?? 0, goal: try Self.choice(d.goal, .guard, "guard.goal"),
            maxSeconds: d.maxSeconds ?? Self.defaultMaxSeconds, noDataSeconds: d.noDataSeconds ?? Self.defaultNoDataSeconds,
            onSRM: try Self.choice(d.onSRM, .notify, "guard.on_srm"), settleSeconds: d.settleSeconds ?? Self.defaultSettleSeconds,
            runtime: runtime)
    }

    /// Every field spelled out (defaults included), so the stored guard never depends on
    /// what the defaults were when it was published.
    public func document(formatTime: (Int64) -> String) -> Document {
        var d = Document()
        d.metric = Document.Metric(name: metric.name, outcome: metric.outcome, kind: metric.kind.rawValue, direction: metric.direction.rawValue)
        d.stages = stages
        d.minStageSeconds = minStageSeconds
        d.minClientsPerArm = minClientsPerArm
        d.alpha = alpha
        d.tuningClients = tuningClients
        d.regressionMargin = regressionMargin
        d.goal = goal.rawValue
        d.maxSeconds = maxSeconds
        d.noDataSeconds = noDataSeconds
        d.onSRM = onSRM.rawValue
        d.settleSeconds = settleSeconds
        d.status = runtime.status.rawValue
        d.startedAt = runtime.startedAt.map(formatTime)
        d.stageStartedAt = runtime.stageStartedAt.map(formatTime)
        return d
    }

    /// Canonical JSON for `catalog.json`: keys sorted, no spaces, absent times omitted — the same
    /// plan always gives the same bytes (the catalog's ETag depends on it).
    public func json(formatTime: (Int64) -> String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and finite doubles only: encoding cannot fail.
        return Array(try! encoder.encode(document(formatTime: formatTime)))
    }

    static func decodeDocument(_ json: [UInt8]) throws(GuardPlanError) -> Document {
        do {
            return try JSONDecoder().decode(Document.self, from: Data(json))
        } catch let e as GuardPlanError {
            throw e
        } catch {
            throw GuardPlanError("guard", "is not valid JSON")
        }
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ text: String?, _ fallback: T, _ field: String) throws(GuardPlanError) -> T
    where T.RawValue == String {
        guard let text else { return fallback }
        guard let value = T(rawValue: text) else {
            throw GuardPlanError(field, "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")) (got \"\(text)\")")
        }
        return value
    }
}

extension GuardPlan.Document {
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(metric, forKey: .metric)
        try c.encodeIfPresent(stages, forKey: .stages)
        try c.encodeIfPresent(minStageSeconds, forKey: .minStageSeconds)
        try c.encodeIfPresent(minClientsPerArm, forKey: .minClientsPerArm)
        try c.encodeIfPresent(alpha, forKey: .alpha)
        try c.encodeIfPresent(tuningClients, forKey: .tuningClients)
        try c.encodeIfPresent(regressionMargin, forKey: .regressionMargin)
        try c.encodeIfPresent(goal, forKey: .goal)
        try c.encodeIfPresent(maxSeconds, forKey: .maxSeconds)
        try c.encodeIfPresent(noDataSeconds, forKey: .noDataSeconds)
        try c.encodeIfPresent(onSRM, forKey: .onSRM)
        try c.encodeIfPresent(settleSeconds, forKey: .settleSeconds)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(startedAt, forKey: .startedAt)
        try c.encodeIfPresent(stageStartedAt, forKey: .stageStartedAt)
    }
}

extension GuardPlan.Document.Metric {
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(outcome, forKey: .outcome)
        try c.encodeIfPresent(kind, forKey: .kind)
        try c.encodeIfPresent(direction, forKey: .direction)
    }
}

// MARK: - Strict decoding helpers

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The object's container, after refusing any key `Keys` does not know (first in sorted order,
/// so the message is stable).
private func strictContainer<Keys: CodingKey & CaseIterable>(_ decoder: Decoder, _ keys: Keys.Type, _ path: String) throws -> KeyedDecodingContainer<Keys> {
    let all: KeyedDecodingContainer<AnyKey>
    do {
        all = try decoder.container(keyedBy: AnyKey.self)
    } catch {
        throw GuardPlanError(path, "must be a JSON object")
    }
    let known = Set(Keys.allCases.map(\.stringValue))
    if let unknown = all.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first {
        throw GuardPlanError("\(path).\(unknown)", "unknown field (known: \(Keys.allCases.map(\.stringValue).sorted().joined(separator: ", ")))")
    }
    return try decoder.container(keyedBy: Keys.self)
}

/// One optional field; a wrong type names it. `null` reads as absent.
private func field<T: Decodable, Keys: CodingKey>(_ c: KeyedDecodingContainer<Keys>, _ key: Keys, _ what: String, _ object: String) throws -> T? {
    do {
        return try c.decodeIfPresent(T.self, forKey: key)
    } catch let e as GuardPlanError {
        throw e
    } catch {
        throw GuardPlanError("\(object).\(key.stringValue)", "must be \(what)")
    }
}

/// An optional array of integers whose wrong element is named by its index (`guard.stages[2]`).
private func integers<Keys: CodingKey>(_ c: KeyedDecodingContainer<Keys>, _ key: Keys, _ object: String) throws -> [Int]? {
    let name = "\(object).\(key.stringValue)"
    // Type probes: each failure becomes the error naming the field (or the index) below.
    guard c.contains(key), (try? c.decodeNil(forKey: key)) != true else { return nil }
    guard var array = try? c.nestedUnkeyedContainer(forKey: key) else { throw GuardPlanError(name, "must be an array of integers") }
    var values: [Int] = []
    while !array.isAtEnd {
        let index = array.currentIndex
        guard let v = try? array.decode(Int.self) else { throw GuardPlanError("\(name)[\(index)]", "must be an integer") }
        values.append(v)
    }
    return values
}
