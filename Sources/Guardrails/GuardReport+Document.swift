import CivilTime
import JSONSupport

/// The report from a §11.5 status document (`GET /admin/models/ID/guard`), shared by `modelctl
/// experiment report` and the console's live chart: the recorded decisions (a record whose time
/// does not parse cannot be placed, and is left out) and, once the evaluator has run, the last
/// evaluation (`evaluated_at`).
extension GuardReport {
    public init?(statusDocument bytes: [UInt8], id: String) {
        guard let root = try? JSONReader.parse(bytes).value, case .object = root else { return nil }
        func arm(_ arms: JSONValue?, _ name: String) -> Arm {
            let a = arms?[name]
            return Arm(clients: Int(a?["clients"]?.numberValue ?? 0), mean: a?["mean"]?.numberValue)
        }
        func point(_ v: JSONValue, time: String, rule: String?) -> Point? {
            RFC3339.parse(time).map { at in
                Point(at: at, time: time, rule: rule, stage: Int(v["stage"]?.numberValue ?? 0),
                      nextStage: (rule == nil ? nil : v["next_stage"]?.numberValue).map { Int($0) },
                      treatment: arm(v["arms"], "treatment"), control: arm(v["arms"], "control"),
                      delta: v["delta"]?.numberValue, bound: v["bound"]?.numberValue)
            }
        }
        var points: [Point] = []
        if case .array(let decisions)? = root["decisions"] {
            for d in decisions {
                if let ts = d.value["ts"]?.stringValue, let p = point(d.value, time: ts, rule: d.value["rule"]?.stringValue ?? "-") {
                    points.append(p)
                }
            }
        }
        if let evaluatedAt = root["evaluated_at"]?.stringValue, let p = point(root, time: evaluatedAt, rule: nil) {
            points.append(p)
        }
        self.init(release: root["release"]?.stringValue ?? id, status: root["status"]?.stringValue ?? "-",
                  alpha: root["alpha"]?.numberValue, tuningClients: root["tuning_clients"]?.numberValue.map { Int($0) },
                  points: points)
        if case .object(let read)? = root["events_read"] {
            eventsRead = read.compactMap { m in m.node.value.stringValue.map { (m.key, $0) } }.sorted { $0.instance < $1.instance }
        }
    }
}
