import Foundation

/// What one background download is for (SPEC §13.2): it travels as the task's
/// `taskDescription` (the system hands it back with every callback, even to a relaunched app)
/// and stays on disk as `partial/<id>.background.json` with the resume data beside it.
struct BackgroundTaskRecord: Codable, Equatable, Sendable {
    let channel: String
    let release: String
    let size: Int64
    let sha256: String
    /// The whole file's URL: the only transfer a background session carries.
    let url: String

    init(channel: String, release: ReleaseDocument) {
        self.channel = channel
        self.release = release.id
        size = release.size
        sha256 = release.sha256
        url = release.url
    }

    /// nil for a task that is not one of ours (another library's session, a changed format) or
    /// whose names could leave the cache directory.
    init?(taskDescription: String?) {
        guard let data = taskDescription?.data(using: .utf8),
              let decoded = try? JSONDecoder().decode(Self.self, from: data),  // not ours: the caller leaves it alone
              ModeldConfiguration.isChannelName(decoded.channel), UUID(uuidString: decoded.release) != nil else { return nil }
        self = decoded
    }

    var taskDescription: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Strings and integers only: encoding cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Whether this task downloads `release` exactly (an id republished elsewhere does not count).
    func describes(_ release: ReleaseDocument, channel: String) -> Bool { self == Self(channel: channel, release: release) }
}

/// The files of one release's background download in its channel's `partial/` directory; all
/// named `<id>.*`, so the install's garbage collection of partials takes them too.
struct BackgroundTaskFiles {
    let record: URL
    let resumeData: URL
    /// The finished file, renamed here from the system's temporary location.
    let download: URL

    init(partial: URL, release id: String) {
        record = partial.appendingPathComponent("\(id).background.json")
        resumeData = partial.appendingPathComponent("\(id).resume")
        download = partial.appendingPathComponent("\(id).download")
    }

    /// Best effort: whatever stays is collected with the partials at the next install.
    func removeAll() {
        for url in [record, resumeData, download] { try? FileManager.default.removeItem(at: url) }
    }
}
