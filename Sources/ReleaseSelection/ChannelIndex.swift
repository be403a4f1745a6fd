/// The selectable releases of a catalog grouped by channel (SPEC §17.1), built once per catalog
/// version, so an update check reads only its own channel's releases: its cost does not grow
/// with releases of other channels. Pure; selection itself stays `ReleaseSelector.select`, which
/// gets the channel's releases instead of the whole catalog (the answer is the same: `select`
/// skips every release of another channel and every one that is not selectable).
public struct ChannelIndex<R: SelectableRelease>: Sendable where R: Sendable {
    /// Per channel, its selectable releases in the order given (catalog order).
    @usableFromInline let byChannel: [String: [R]]

    public init<S: Sequence>(_ releases: S) where S.Element == R {
        var byChannel: [String: [R]] = [:]
        for r in releases where r.isSelectable { byChannel[r.channel, default: []].append(r) }
        self.byChannel = byChannel
    }

    /// The selectable releases of `channel`, in catalog order (empty for an unknown channel).
    @inlinable
    public func releases(of channel: String) -> [R] { byChannel[channel] ?? [] }

    /// `ReleaseSelector.select` over `channel`'s releases only.
    @inlinable
    public func select(sdk: SDKVersion, channel: String, clientID: String?, bases: ReportedBases = .none) -> ReleaseSelector.Selection<R> {
        // Through the buffer, whose subscript lends each release in place: the scan copies none.
        releases(of: channel).withUnsafeBufferPointer {
            ReleaseSelector.select(from: $0, sdk: sdk, channel: channel, clientID: clientID, bases: bases)
        }
    }
}
