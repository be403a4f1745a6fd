import Foundation

/// What an update check found (after verification).
public struct CheckResult: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// The answer names the active model (or a blocked one): nothing to do.
        case upToDate
        /// A verified release that is not installed yet.
        case available
        /// No release is eligible for this SDK and channel (404 `no_model`).
        case noModel
    }

    public let status: Status
    /// The release the answer named (nil for `noModel`).
    public let release: ReleaseDocument?
    /// The catalog version a verified signature vouched for; nil when the answer was unsigned.
    public let catalog: Int64?
}

/// What ``ModelChannel/update()`` did.
public struct UpdateResult: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        case upToDate, updated, noModel
        /// A verified newer release that ``DownloadConditions`` kept from downloading (`maxBytes`).
        case available
    }

    public let status: Status
    /// The model in use afterwards (nil = the app's bundled base model).
    public let active: InstalledModel?
    public let catalog: Int64?
    /// Body bytes fetched to install `active` when `status` is `updated` (SPEC §14, §16), else 0.
    public var bytesFetched: Int64 = 0
    /// How `active`'s file arrived when `status` is `updated` (SPEC §14, §16), else nil.
    public var method: FetchMethod?
}

/// How a release's file was fetched (SPEC §16, `model_activated`'s `method`): decoded from a
/// patch against an installed model, built from cached chunks plus range requests, decoded from
/// its packed form, or downloaded whole.
public enum FetchMethod: String, Sendable {
    case patch, delta, packed, full
}

/// What ``ModelChannel/flushEvents()`` did.
public struct FlushResult: Sendable, Equatable {
    /// Events the server acknowledged (stored now or already, by `batch_id`).
    public var sent = 0
    /// Events in batches the server refused as invalid, set aside in `events/quarantine/`.
    public var quarantined = 0
    /// Events still queued.
    public var remaining = 0
}
