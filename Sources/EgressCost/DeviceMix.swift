/// A declared device mix for pricing a release with variants (`cost rollout --mix 8gb=0.3`):
/// the share of installs that get each variant; the rest get the release's own file. Pure.
public struct DeviceMix: Equatable, Sendable {
    /// Variant name → share of installs (0–1), in the order given.
    public let shares: [(name: String, share: Double)]

    public static func == (a: DeviceMix, b: DeviceMix) -> Bool {
        a.shares.map(\.name) == b.shares.map(\.name) && a.shares.map(\.share) == b.shares.map(\.share)
    }

    /// `name=share` items, each option value possibly several split by `,`
    /// (`--mix 8gb=0.3 --mix 6gb=0.2` or `--mix 8gb=0.3,6gb=0.2`); shares sum to at most 1.
    public init(parsing values: [String]) throws(EstimateError) {
        var shares: [(name: String, share: Double)] = []
        for item in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, let share = Double(parts[1]), share.isFinite, (0...1).contains(share) else {
                throw EstimateError(message: "--mix \(item): expected VARIANT=SHARE with SHARE between 0 and 1 (e.g. 8gb=0.3)")
            }
            let name = String(parts[0])
            guard !shares.contains(where: { $0.name == name }) else { throw EstimateError(message: "--mix names \(name) twice") }
            shares.append((name, share))
        }
        let total = shares.reduce(0) { $0 + $1.share }
        guard total <= 1 + 1e-9 else { throw EstimateError(message: "--mix shares add up to \(total), more than 1") }
        self.shares = shares
    }

    /// Bytes one install downloads on average: each variant's size by its share, the default
    /// file for the rest, rounded to the nearest byte. Every name must be a variant in `sizes`.
    public func meanSize(defaultSize: Int64, variantSizes sizes: [String: Int64]) throws(EstimateError) -> Int64 {
        var mean = 0.0
        var rest = 1.0
        for (name, share) in shares {
            guard let size = sizes[name] else {
                let known = sizes.keys.sorted()
                throw EstimateError(message: "--mix \(name): the release has no such variant"
                    + (known.isEmpty ? " (it has none)" : " (it has \(known.joined(separator: ", ")))"))
            }
            mean += share * Double(size)
            rest -= share
        }
        mean += max(0, rest) * Double(defaultSize)
        return Int64(mean.rounded())
    }
}
