import CivilTime

/// The `Date: …\r\n` line, re-formatted only when the second changes (one per loop thread).
/// The caller supplies the clock so this stays pure.
public struct DateCache: Sendable {
    private var second: Int64 = .min
    public private(set) var line: [UInt8] = []

    public init() {}

    public mutating func update(epochSeconds: Int64) {
        guard epochSeconds != second else { return }
        second = epochSeconds
        line = Array("Date: \(HTTPDate.format(epochSeconds: epochSeconds))\r\n".utf8)
    }
}
