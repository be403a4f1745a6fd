import ContentDigest
import DurableFiles
import Foundation
import ModelMirror
import ObjectStorage

/// `<models_dir>/.mirror/`: `uploads/` holds one small JSON file per multipart upload in progress,
/// written before the first part is sent and removed once Complete succeeded, so a mirror killed
/// mid-upload resumes it (ListParts) instead of sending every part again; `deletions.json` keeps
/// when each garbage-collected file became deletable (SPEC §9.1).
public struct MirrorJournal: Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        public let key: String
        public let upload_id: String
        public let size: Int64
        public let sha256: String
        public let part_size: Int64

        public init(key: String, upload_id: String, size: Int64, sha256: String, part_size: Int64) {
            self.key = key
            self.upload_id = upload_id
            self.size = size
            self.sha256 = sha256
            self.part_size = part_size
        }
    }

    public let directory: String
    private let schedulePath: String

    public init(modelsDir: String) {
        directory = modelsDir + "/.mirror/uploads"
        schedulePath = modelsDir + "/.mirror/deletions.json"
    }

    /// The deletion schedule of garbage-collected files (empty when none was saved yet). Only a
    /// missing file means that: one that cannot be read would restart every wait.
    public func deletions() throws(MirrorFailure) -> DeletionSchedule {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: schedulePath)) } catch CocoaError.fileReadNoSuchFile {
            return DeletionSchedule()
        } catch {
            throw MirrorFailure("cannot read \(schedulePath): \(error.localizedDescription)")
        }
        do { return try JSONDecoder().decode(DeletionSchedule.self, from: data) } catch {
            throw MirrorFailure("\(schedulePath) is not a deletion schedule; remove it to start the wait over")
        }
    }

    /// Written durably (SPEC §2 atomic replace): a crash leaves the old schedule or the new one.
    public func save(_ schedule: DeletionSchedule) throws(MirrorFailure) {
        do {
            try DurableFile.makeDirectories(directory)
            try DurableFile.replace(schedulePath, with: [UInt8](JSONEncoder().encode(schedule)))
        } catch {
            throw MirrorFailure("cannot write \(schedulePath): \(error)")
        }
    }

    /// The journaled upload of `key`. One that cannot be read counts as none: resuming only
    /// saves re-sending parts, so the upload starts over, and the stale one is aborted by the
    /// bucket's lifecycle rule.
    public func entry(for key: String) -> Entry? {
        guard let data = FileManager.default.contents(atPath: path(for: key)),
              let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.key == key else { return nil }
        return entry
    }

    /// Written durably (SPEC §2 atomic replace): a crash leaves the old entry or the new one.
    public func record(_ entry: Entry) throws(MirrorFailure) {
        do {
            try DurableFile.makeDirectories(directory)
            try DurableFile.replace(path(for: entry.key), with: [UInt8](JSONEncoder().encode(entry)))
        } catch {
            throw MirrorFailure("cannot write the mirror journal in \(directory): \(error)")
        }
    }

    /// A stale entry that cannot be unlinked is harmless: the next run finds it for other bytes
    /// or an upload the bucket no longer has, and starts over.
    public func remove(_ key: String) { unlink(path(for: key)) }

    /// Keys can hold any character: the file is named by the key's SHA-256.
    private func path(for key: String) -> String {
        directory + "/" + SHA256Hex.of(Array(key.utf8)) + ".json"
    }
}
