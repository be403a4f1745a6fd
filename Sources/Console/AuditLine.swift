import JSONSupport

/// An audit line read back for the console's audit view (SPEC §15.1): the fields it shows, and
/// what changed in words. Lines it cannot read (a torn tail, a foreign line) are skipped.
public struct AuditLine: Sendable, Equatable {
    public var time: String
    public var action: String
    public var actor: String?
    public var peer: String
    public var release: String?
    public var token: String?
    /// `state active → paused`, `new: …` for a publish, the role of a token: what the line says changed.
    public var change: String

    static let fields: JSONReader.MemberNames = ["ts", "action", "actor", "peer", "release", "token", "role", "before", "after"]

    public init?(json line: ArraySlice<UInt8>) {
        guard let v = try? JSONReader.members(Self.fields, of: line), let time = v[0]?.stringValue,
              let action = v[1]?.stringValue, let peer = v[3]?.stringValue else { return nil }
        self.time = time
        self.action = action
        actor = v[2]?.stringValue
        self.peer = peer
        release = v[4]?.stringValue
        token = v[5]?.stringValue
        change = v[6]?.stringValue.map { "role \($0)" } ?? Self.difference(before: v[7], after: v[8])
    }

    /// Does the line belong to the view's filter (an empty filter matches everything)?
    public func matches(actor wanted: String?, release wantedRelease: String?) -> Bool {
        (wanted.map { $0 == actor } ?? true) && (wantedRelease.map { $0 == release } ?? true)
    }

    /// The fields that differ, `name before → after`, in the order the writer puts them.
    static func difference(before: JSONValue?, after: JSONValue?) -> String {
        guard case .object(let new)? = after else { return "" }
        guard case .object(let old)? = before else {
            return "new: " + new.map { "\($0.key) \(text($0.node.value))" }.joined(separator: ", ")
        }
        return new.compactMap { member -> String? in
            let was = old.first { $0.key == member.key }.map { text($0.node.value) } ?? "–"
            let now = text(member.node.value)
            return was == now ? nil : "\(member.key) \(was) → \(now)"
        }.joined(separator: ", ")
    }

    private static func text(_ v: JSONValue) -> String {
        switch v {
        case .null: "–"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .string(let s): s
        case .array(let items): "[" + items.map { text($0.value) }.joined(separator: ", ") + "]"
        case .object: "{…}"
        }
    }
}
