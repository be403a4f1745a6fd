import Foundation
import ReleaseSelection
import ModeldSigning

/// Everything a ``ModelChannel`` needs to know about the app and where its models come from.
public struct ModeldConfiguration: Sendable {
    /// Where update checks go.
    public enum Source: Sendable, Equatable {
        /// A modeld server: `GET|POST <base>/latest` (SPEC §4.1, §4.2); events ride along.
        case server(URL)
        /// A static host (bucket, CDN, plain file server): the URL of the directory holding
        /// `latest_model_details.sig.json`, or of that file itself (SPEC §12, §9.1).
        /// Events go to ``ModeldConfiguration/events`` when set, else stay queued (bounded).
        case staticFile(URL)
        /// Rules evaluated on the device (SPEC §9.2): the URL of the directory holding
        /// `rules/` (modeld's root, or a bucket's `…/PREFIX/models/`). Events as for `staticFile`.
        case rules(URL)
    }

    public var source: Source
    /// The app's SDK version, `MAJOR[.MINOR[.PATCH]]` (SPEC §3).
    public var sdkVersion: String
    public var channel: String
    /// The install's identity for rollouts and event dedup; nil = a random UUID the client
    /// creates once and keeps in the cache.
    public var clientID: String?
    /// The directory the client owns: installed models, partial downloads, state, events.
    public var cacheDirectory: URL
    /// Public keys of `modelctl keys generate` (`.pub` file contents or files read by the app).
    /// Empty: the client refuses to open unless ``allowUnsigned`` is set.
    public var trustedKeys: [TrustedPublicKey]
    /// Accept unsigned metadata when ``trustedKeys`` is empty (development only; SPEC §13.2).
    public var allowUnsigned = false
    /// How many earlier models stay installed for rollback.
    public var keepPrevious: Int
    /// Back-off after failures: failure n waits `random(0, min(cap, base·2ⁿ))`.
    public var backoffBase: TimeInterval
    public var backoffCap: TimeInterval
    /// The nominal interval between update checks (jittered by ``ModelChannel/nextCheckDate()``).
    public var pollInterval: TimeInterval
    /// A step after verification and before activation (e.g. ``CoreMLCompiler`` on Apple platforms).
    public var preparer: (any ModelPreparer)?
    /// The model the app ships, if any: active until a newer one is installed (SPEC §13.1).
    public var bundledModel: BundledModel?
    /// Sent with every update check so the server can answer a device-class variant (SPEC
    /// §3.1) and used by rules evaluation (§9.2); read from the OS by default, `.none` to send none.
    public var deviceAttributes: DeviceAttributes = .current
    /// The channel whose installed model this channel's adapters apply on (SPEC §3.2): its
    /// SHA-256 is sent as `base=` with server checks. Rules mode needs none: it reports every
    /// channel's installed model of the cache.
    public var baseChannel: String?
    /// When a new model counts as crash-looping and is rolled back (docs/client.md); `.off`: never.
    public var crashLoop = CrashLoopRule()
    /// When a release may be downloaded (network kinds on Apple platforms, `maxBytes` everywhere).
    public var conditions = DownloadConditions()
    /// The HTTP client (URLSession on Apple platforms, libcurl on Linux by default).
    public var transport = TransportKind.automatic
    #if canImport(Darwin)
    /// Whole model files through a background URLSession (everything else stays in the foreground).
    public var backgroundDownloads: BackgroundDownloads?
    var wholeFileSession: (any BackgroundSession)? { backgroundSession ?? backgroundDownloads }
    #else
    var wholeFileSession: (any BackgroundSession)? { backgroundSession }
    #endif
    /// Test-only: a stand-in background session that replays the system's callbacks (Linux has
    /// none, and the bookkeeping behind ``BackgroundDownloads`` is tested through it). Not for apps.
    package var backgroundSession: (any BackgroundSession)?
    /// Test-only: called after each install step, so a crash test can kill the process exactly
    /// there (`modeld-client` sets it from `MODELD_CLIENT_CRASH_AT`). Not for apps.
    package var afterInstallStep: (@Sendable (InstallStep) -> Void)?
    /// Where events go without a model server (SPEC §9.2): the base URL of any server answering
    /// `POST /events` (a modeld replica run for ingestion). nil: a `server` source takes them.
    public var events: URL?
    /// The most events kept queued; beyond it the oldest whole batches are dropped and counted
    /// (SPEC §9.2).
    public var maxQueuedEvents = 10_000

    public init(source: Source, sdkVersion: String, cacheDirectory: URL, channel: String = "stable",
                clientID: String? = nil, trustedKeys: [TrustedPublicKey] = [], keepPrevious: Int = 1,
                backoffBase: TimeInterval = 30, backoffCap: TimeInterval = 6 * 3600,
                pollInterval: TimeInterval = 4 * 3600, preparer: (any ModelPreparer)? = nil) {
        self.source = source
        self.sdkVersion = sdkVersion
        self.cacheDirectory = cacheDirectory
        self.channel = channel
        self.clientID = clientID
        self.trustedKeys = trustedKeys
        self.keepPrevious = keepPrevious
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.pollInterval = pollInterval
        self.preparer = preparer
    }

    func validate() throws -> SDKVersion {
        guard let version = SDKVersion(sdkVersion) else {
            throw ModeldClientError.invalidConfiguration("sdk version '\(sdkVersion)' is not MAJOR[.MINOR[.PATCH]]")
        }
        guard Self.isChannelName(channel) else {
            throw ModeldClientError.invalidConfiguration("channel '\(channel)' is not [a-z0-9_-]{1,32}")
        }
        if let clientID, !(1...128).contains(clientID.utf8.count) || !clientID.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) {
            throw ModeldClientError.invalidConfiguration("client id must be 1–128 printable ASCII characters")
        }
        try bundledModel?.validate()
        try deviceAttributes.validate()
        if let baseChannel, (try? ReleaseFields.checkChannel(baseChannel)) == nil {
            throw ModeldClientError.invalidConfiguration("baseChannel '\(baseChannel)' must match [a-z0-9_-]{1,32}")
        }
        if let launches = crashLoop.launches, launches < 1 {
            throw ModeldClientError.invalidConfiguration("crashLoop needs launches ≥ 1 (or .off)")
        }
        guard keepPrevious >= 0 else { throw ModeldClientError.invalidConfiguration("keepPrevious must be ≥ 0") }
        guard maxQueuedEvents >= 1 else { throw ModeldClientError.invalidConfiguration("maxQueuedEvents must be ≥ 1") }
        return version
    }

    /// `[a-z0-9_-]{1,32}`: also the channel's directory name in the cache.
    static func isChannelName(_ name: String) -> Bool {
        (1...32).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}

/// The durable steps of installing a downloaded release, in order; a crash after any of them
/// leaves the previous model or the new one active, never a mix (SPEC §13).
package enum InstallStep: String, Sendable, CaseIterable {
    /// The file is complete, verified and fsynced in `partial/`.
    case downloaded
    /// It sits with its `release.json` in a staging directory under `models/`.
    case staged
    /// A zipped model's first file is unpacked into the staging directory (zipped models only).
    case unpacking
    /// The staging directory was renamed to `models/<id>/`; `state.json` still names the old model.
    case committed
    /// `state.json` names the new model; the `model_activated` event is not yet queued.
    case activated
}

/// A public key the app trusts to sign update metadata (SPEC §12).
public struct TrustedPublicKey: Sendable, Equatable {
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: Data

    public init(publicKey: Data) throws {
        guard publicKey.count == 32 else {
            throw ModeldClientError.invalidConfiguration("an Ed25519 public key is 32 bytes, got \(publicKey.count)")
        }
        self.publicKey = publicKey
    }

    /// Parses a `.pub` file of `modelctl keys generate`:
    /// `modeld-ed25519-public-v1 <base64> keyid=<16 hex>` (the keyid must match the key).
    public init(pubFileContents text: String) throws {
        do { try self.init(publicKey: Data(KeyFileFormat.parsePublic(text).raw)) } catch let error as KeyFileError {
            throw ModeldClientError.invalidConfiguration("public key file: \(error.description)")
        }
    }
}

extension ModeldConfiguration {
    /// Where `POST /events` goes: the events URL, else a server source; nil = events stay queued.
    var eventsBase: URL? {
        if let events { return events }
        if case .server(let base) = source { return base }
        return nil
    }
}
