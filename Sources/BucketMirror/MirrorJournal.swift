import DurableFiles
import Foundation
import ModelMirror
import ObjectStorage

/// `<models_dir>/.mirror/`: `uploads/` holds one small JSON file per multipart upload in progress,
/// written before the first part is sent and removed once Complete succeeded, so a mirror killed
/// mid-upload resumes it (ListParts) instead of sending every part again; `deletions.json` keeps
/// when each garbage-collected file became deletable (SPEC §9.1).
struct MirrorJournal {
    struct Entry: Codable, Equatable {
        let key: String
        let upload_id: String
        let size: Int64
        let sha256: String
        let part_size: Int64
    }

    let directory: String
    private let schedulePath: String

    init(modelsDir: String) {
        directory = modelsDir + "/.mirror/uploads"
        schedulePath = modelsDir + "/.mirror/deletions.json"
    }

    /// The deletion schedule of garbage-collected files (empty when none was saved yet).
    func deletions() throws(CLIFailure) -> DeletionSchedule {
        guard let data = FileManager.default.contents(atPath: schedulePath) else { return DeletionSchedule() }
        guard let schedule = try? JSONDecoder().decode(DeletionSchedule.self, from: data) else {
            throw CLIFailure("\(schedulePath) is not a deletion schedule; remove it to start the wait over")
        }
        return schedule
    }

    func save(_ schedule: DeletionSchedule) throws(CLIFailure) {
        do {
            try DurableFile.makeDirectories(directory)
            try DurableFile.replace(schedulePath, with: [UInt8](JSONEncoder().encode(schedule)))
        } catch {
            throw CLIFailure("cannot write \(schedulePath): \(error)")
        }
    }

    func entry(for key: String) -> Entry? {
        guard let data = FileManager.default.contents(atPath: path(for: key)),
              let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.key == key else { return nil }
        return entry
    }

    /// Written durably (SPEC §2 atomic replace): a crash leaves the old entry or the new one.
    func record(_ entry: Entry) throws(CLIFailure) {
        do {
            try DurableFile.makeDirectories(directory)
            try DurableFile.replace(path(for: entry.key), with: [UInt8](JSONEncoder().encode(entry)))
        } catch {
            throw CLIFailure("cannot write the mirror journal in \(directory): \(error)")
        }
    }

    func remove(_ key: String) { unlink(path(for: key)) }

    /// Keys can hold any character: the file is named by the key's SHA-256.
    private func path(for key: String) -> String {
        directory + "/" + S3RequestBuilder.sha256Hex(Array(key.utf8)) + ".json"
    }
}
