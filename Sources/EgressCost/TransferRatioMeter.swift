/// The transfer ratio a fleet actually achieved (SPEC §16, issue #30 item 4), measured from the
/// access log of a modeld that served packed files and patches: the bytes sent for model
/// downloads over the bytes the same downloads would have sent as full files
/// (docs/decisions/cost.md, "Measured transfer ratio"). Pure: the caller says what each
/// `/models/` name is (from the catalog); records go in one at a time.
public struct TransferRatioMeter: Sendable {
    /// What a name under `/models/` is, for the ratio.
    public enum Object: Equatable, Sendable {
        /// The model (or variant) file itself: full downloads, their resumes and chunk-delta
        /// ranges, each byte standing for itself.
        case file
        /// A packed file or patch of `size` bytes that rebuilds a file of `fileSize` bytes: its
        /// bytes stand for `fileSize / size` times as many of the file.
        case coded(size: Int64, fileSize: Int64)
        /// A chunk list (SPEC §14): sent, but it stands for none of the file.
        case chunkList
    }

    /// Bytes sent, by what was fetched.
    public struct Sent: Equatable, Sendable {
        public var files: Int64 = 0, coded: Int64 = 0, chunkLists: Int64 = 0
        public var total: Int64 { files &+ coded &+ chunkLists }
    }

    public private(set) var sent = Sent()
    /// Answers whose name the catalog does not know (files collected and forgotten, typos): not
    /// counted on either side.
    public private(set) var unknown = TrafficCounter()
    private let objects: [String: Object]
    /// Bytes sent per packed file or patch (by name): scaled once at the end, exactly.
    private var codedBytes: [String: Int64] = [:]

    /// `objects`: every file name under `/models/` the server could have answered.
    public init(objects: [String: Object]) { self.objects = objects }

    /// Counts `record` when it is a model-file answer with a body (GET, 200 or 206); returns whether it counted.
    @discardableResult
    public mutating func add(_ record: EgressLogRecord) -> Bool {
        guard record.route == "models", record.method == "GET", record.status == 200 || record.status == 206,
              record.path.hasPrefix("/models/") else { return false }
        switch objects[String(record.path.dropFirst("/models/".count))] {
        case nil: unknown.count(record.bytes); return false
        case .file?: sent.files &+= record.bytes
        case .chunkList?: sent.chunkLists &+= record.bytes
        case .coded?:
            sent.coded &+= record.bytes
            codedBytes[String(record.path.dropFirst("/models/".count)), default: 0] &+= record.bytes
        }
        return true
    }

    /// What the counted downloads would have sent as full files: the file bytes as they are, and
    /// each pack's or patch's bytes × file size / its size, rounded half-up per object.
    public var fullFileBytes: Int64 {
        var total = Int128(sent.files)
        for (name, bytes) in codedBytes {
            guard case .coded(let size, let fileSize)? = objects[name], size > 0 else { continue }
            total += (2 * Int128(bytes) * Int128(fileSize) + Int128(size)) / (2 * Int128(size))
        }
        return Int64(min(total, Int128(Int64.max)))
    }

    /// Sent over full-file bytes, in millionths rounded half-up; nil when nothing was downloaded
    /// or when more was sent than full files would have cost (chunk lists fetched for downloads
    /// the log does not hold), which no ratio of a download can express.
    public var ratio: HitRatio? {
        let full = fullFileBytes
        guard full > 0, sent.total <= full else { return nil }
        return HitRatio(fraction: sent.total, of: full)
    }
}
