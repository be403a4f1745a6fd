import Foundation

enum BackupExclusion {
    /// Keeps the cache out of iCloud and iTunes backups (SPEC §13.1): models are re-downloadable
    /// and large. Set on the cache directory, it covers everything under it. Apple platforms
    /// only; a failure only costs backup space, so it is not thrown.
    static func exclude(_ directory: URL) {
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        try? url.setResourceValues(values)
        #endif
    }
}
