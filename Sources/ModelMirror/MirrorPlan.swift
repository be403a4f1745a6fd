import ObjectStorage

/// What is already in the bucket under a key, as HEAD reported it (nil: nothing there).
public struct RemoteObject: Sendable, Equatable {
    public let size: Int64
    /// `x-amz-meta-sha256`, nil when the object was stored without it.
    public let sha256: String?

    public init(size: Int64, sha256: String?) {
        self.size = size
        self.sha256 = sha256
    }
}

/// The mirror's decisions for one run, in upload order (SPEC §9.1): pure, so `--dry-run` prints
/// exactly what a real run would do.
public struct MirrorPlan: Sendable, Equatable {
    public enum Action: String, Sendable {
        case upload, multipart
        /// HEAD shows the same size and `x-amz-meta-sha256`.
        case skip
        /// An immutable key already holds different bytes: never overwritten, reported.
        case conflict
    }

    public struct Step: Sendable, Equatable {
        public let object: MirrorObject
        public let action: Action
    }

    public let steps: [Step]

    /// `remote[key]` is the HEAD result for each object's key (absent or nil: not there).
    public init(objects: [MirrorObject], remote: [String: RemoteObject?], multipartThreshold: Int64) {
        steps = objects.map { object in
            let existing = remote[object.key] ?? nil
            if let existing, existing.size == object.size, existing.sha256 == object.sha256 { return Step(object: object, action: .skip) }
            if existing != nil, object.isImmutable { return Step(object: object, action: .conflict) }
            let multipart = PartPlan.usesMultipart(size: object.size, threshold: multipartThreshold)
            return Step(object: object, action: multipart ? .multipart : .upload)
        }
    }

    public var uploads: [Step] { steps.filter { $0.action == .upload || $0.action == .multipart } }
    public var conflicts: [Step] { steps.filter { $0.action == .conflict } }
    public var bytesToUpload: Int64 { uploads.reduce(0) { $0 + $1.object.size } }

    /// The uploads in the order they must complete, as runs that may go concurrently:
    /// consecutive single-request uploads of immutable objects of one kind (model files, or
    /// snapshots), none of which names another. A multipart upload and each pointer JSON form a
    /// run of their own, and a run starts only after the one before it has finished, so
    /// everything an object names is in the bucket before it (SPEC §9.1).
    public var batches: [[Step]] {
        var batches: [[Step]] = []
        for step in uploads {
            if Self.batchable(step), let last = batches.last?.last, Self.batchable(last), last.object.kind == step.object.kind {
                batches[batches.count - 1].append(step)
            } else {
                batches.append([step])
            }
        }
        return batches
    }

    private static func batchable(_ step: Step) -> Bool { step.action == .upload && step.object.isImmutable }

    /// One line per object for `--dry-run`: action, kind, size, key.
    public var lines: [String] {
        steps.map { "\($0.action.rawValue)\t\($0.object.kind.rawValue)\t\($0.object.size)\t\($0.object.key)" }
    }
}
