import Foundation
import ReleaseSelection

/// `Tests/Fixtures/selection-cases.json` (scripts/selection-vectors.py): the selection vectors
/// the server's tests and the client's tests both run, so the two sides are held to the same
/// answers (SPEC §9.2: one implementation, proven against shared cases).
public struct SelectionVectors: Sendable {
    public struct Case: Sendable, CustomStringConvertible {
        public let name: String
        public let sdk: SDKVersion
        public let channel: String
        public let clientID: String?
        public let device: DeviceAttributes
        /// The models the device has installed, per channel (SPEC §3.2): what a rules-mode
        /// client reports; the server reads the same SHA-256s as `base=`.
        public let installed: [String: String]
        /// nil = `no_model`.
        public let expect: Expected?
        /// For cases of the guarded release: the arm its client is in (nil = neither).
        public let arm: ReleaseSelector.Arm?
        public let hasArm: Bool
        public var description: String { name }
        /// The bases as `/latest?base=` reports them.
        public var queryBases: ReportedBases { ReportedBases(anyChannel: Set(installed.values)) }
    }

    public struct Expected: Sendable, Equatable {
        public let id: String
        public let variant: String?
        public let url: String
        public let sha256: String
        public let size: Int64

        public init(id: String, variant: String?, url: String, sha256: String, size: Int64) {
            (self.id, self.variant, self.url, self.sha256, self.size) = (id, variant, url, sha256, size)
        }

        /// What a §4.1 document names.
        public init(_ d: ReleaseDocument) { self.init(id: d.id, variant: d.variant, url: d.url, sha256: d.sha256, size: d.size) }
    }

    public let publicBaseURL: String
    /// The catalog.json bytes the server side loads.
    public let catalogJSON: [UInt8]
    public let guardedReleaseID: String
    /// The snapshot a server must write per channel, decoded, and as JSON bytes.
    public let rules: [String: RulesSnapshot]
    public let rulesJSON: [String: [UInt8]]
    public let cases: [Case]

    public static func load() throws -> SelectionVectors {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/selection-cases.json")
        let data = try Data(contentsOf: url)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let catalog = root["catalog"] as? [String: Any], let releases = catalog["releases"] as? [[String: Any]],
              let rules = root["rules"] as? [String: Any], let cases = root["cases"] as? [[String: Any]],
              let base = root["public_base_url"] as? String else { throw VectorError("unexpected fixture shape") }
        var snapshots: [String: RulesSnapshot] = [:], bytes: [String: [UInt8]] = [:]
        for (channel, doc) in rules {
            bytes[channel] = Array(try JSONSerialization.data(withJSONObject: doc))
            snapshots[channel] = try JSONDecoder().decode(RulesSnapshot.self, from: Data(bytes[channel]!))
        }
        guard let guarded = releases.first(where: { $0["guard"] != nil })?["id"] as? String else { throw VectorError("no guarded release") }
        return SelectionVectors(
            publicBaseURL: base, catalogJSON: Array(try JSONSerialization.data(withJSONObject: catalog)),
            guardedReleaseID: guarded, rules: snapshots, rulesJSON: bytes, cases: try cases.map(Self.decodeCase))
    }

    private static func decodeCase(_ c: [String: Any]) throws -> Case {
        guard let name = c["name"] as? String, let sdkText = c["sdk"] as? String, let sdk = SDKVersion(sdkText),
              let channel = c["channel"] as? String else { throw VectorError("bad case \(c)") }
        let device = try DeviceAttributes(parsing: c["platform"] as? String, os: c["os"] as? String,
                                          ramMB: (c["ram_mb"] as? Int).map(String.init), device: c["device"] as? String,
                                          systemModel: c["system_model"] as? String)
        var expected: Expected?
        if let e = c["expect"] as? [String: Any] {
            guard let id = e["id"] as? String, let url = e["url"] as? String, let sha = e["sha256"] as? String,
                  let size = (e["size"] as? NSNumber)?.int64Value else { throw VectorError("bad expect in \(name)") }
            expected = Expected(id: id, variant: e["variant"] as? String, url: url, sha256: sha, size: size)
        }
        return Case(name: name, sdk: sdk, channel: channel, clientID: c["client_id"] as? String, device: device,
                    installed: c["installed"] as? [String: String] ?? [:], expect: expected,
                    arm: (c["arm"] as? String).flatMap(ReleaseSelector.Arm.init(rawValue:)), hasArm: c.keys.contains("arm"))
    }

    /// The rules-side answer for `c`: the channel's snapshot evaluated locally (nil snapshot =
    /// a channel that never had a release: no model).
    public func rulesAnswer(_ c: Case) -> Expected? { rulesDocument(c).map(Expected.init) }

    /// The §4.1 document the client's rules evaluation makes for `c` (nil = no model).
    public func rulesDocument(_ c: Case) -> ReleaseDocument? {
        rules[c.channel]?.answer(sdk: c.sdk, clientID: c.clientID, device: c.device, bases: ReportedBases(installed: c.installed))?.document
    }
}

public struct VectorError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
