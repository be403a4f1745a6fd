@testable import DurableFiles
import Foundation
import Testing

struct DurableFileTests {
    func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "durable-\(getpid())-\(UUID().uuidString)"
        try DurableFile.makeDirectories(dir)
        return dir
    }

    @Test func replaceWritesWholeFileAndLeavesNoTemp() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        try DurableFile.replace(path, with: Array("old".utf8))
        try DurableFile.replace(path, with: Array("new contents".utf8), mode: 0o600)
        #expect(try DurableFile.read(path) == Array("new contents".utf8))
        #expect(DurableFile.entries(of: dir) == ["state.json"])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func makeDirectoriesIsMkdirP() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try DurableFile.makeDirectories(dir + "/a/b/c"))
        #expect(try !DurableFile.makeDirectories(dir + "/a/b/c"), "an existing directory is not created again")
        try DurableFile.replace(dir + "/a/file", with: [1])
        #expect(throws: IOFailure.self) { try DurableFile.makeDirectories(dir + "/a/file/d") }
    }

    /// Only a missing file is "absent"; any other failure is an error the caller must see.
    @Test func readTellsMissingFromUnreadable() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try DurableFile.read(dir + "/missing") == nil)
        #expect(try DurableFile.read(dir + "/missing/below") == nil)
        let failure = #expect(throws: IOFailure.self) { try DurableFile.read(dir) }
        #expect(failure?.code == EISDIR && failure?.operation == "read")
    }

    @Test func replaceIntoMissingDirectoryFailsCleanly() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let failure = #expect(throws: IOFailure.self) { try DurableFile.replace(dir + "/no/such", with: [1]) }
        #expect(failure?.code == ENOENT && failure?.description.contains(dir + "/no/") == true)
    }

    @Test func injectedWriteErrorsAndZeroWritesFail() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fd = try DurableFile.open(dir + "/f", O_WRONLY | O_CREAT)
        defer { close(fd) }
        let bytes: [UInt8] = [1, 2, 3]
        bytes.withUnsafeBytes { raw in
            let eio = #expect(throws: IOFailure.self) {
                try DurableFile.writeAll(fd, raw, path: "f", using: { _, _ in errno = EIO; return -1 })
            }
            #expect(eio?.code == EIO)
            let full = #expect(throws: IOFailure.self) { try DurableFile.writeAll(fd, raw, path: "f", using: { _, _ in 0 }) }
            #expect(full?.isOutOfSpace == true)
            var calls = 0
            #expect(throws: Never.self) {
                try DurableFile.writeAll(fd, raw, path: "f", using: { fd, part in calls += 1; return write(fd, part.baseAddress, 1) })
            }
            #expect(calls == 3, "short writes are retried")
        }
        #expect(try DurableFile.read(dir + "/f") == bytes)
    }

    @Test func directoryOfPath() {
        #expect(DurableFile.directory(of: "/a/b/c") == "/a/b")
        #expect(DurableFile.directory(of: "/c") == "/")
        #expect(DurableFile.directory(of: "c") == ".")
    }

    @Test func tempNamesAreRecognisedExactly() {
        #expect(DurableFile.isTempName(DurableFile.tempName(for: "catalog.json")))
        #expect(DurableFile.isTempName(".catalog.json.tmp-123-0123456789ab"))
        #expect(DurableFile.isTempName(".a.tmp-1-abcdefabcdef"))
        for name in ["catalog.json", ".lock", ".tmp", "x.catalog.json.tmp-1-0123456789ab", ".tmp-123-0123456789ab",
                     ".catalog.json.tmp-12a-0123456789ab", ".catalog.json.tmp--0123456789ab", ".catalog.json.tmp-123-0123456789AB",
                     ".catalog.json.tmp-123-0123456789a", ".catalog.json.tmp-123-0123456789abc", ".catalog.json.tm-123-0123456789ab"] {
            #expect(!DurableFile.isTempName(name), "\(name)")
        }
    }

    /// Only temps older than the age go: a live writer's (fresh) temp, other files and
    /// directories stay.
    @Test func removeStaleTempsRemovesOnlyOldTemps() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = Date(timeIntervalSinceNow: -2 * Double(DurableFile.staleTempAge))
        let oldTemp = DurableFile.tempName(for: "catalog.json"), freshTemp = DurableFile.tempName(for: "catalog.json")
        for name in [oldTemp, freshTemp, "catalog.json", ".x.tmp-1-0123456789ab"] {
            try DurableFile.replace(dir + "/" + name, with: [1])
        }
        try DurableFile.makeDirectories(dir + "/.d.tmp-1-0123456789ab")
        for name in [oldTemp, "catalog.json", ".d.tmp-1-0123456789ab"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + name)
        }
        let now = Int64(Date().timeIntervalSince1970)
        #expect(DurableFile.removeStaleTemps(in: dir, now: now) == [oldTemp])
        #expect(Set(DurableFile.entries(of: dir) ?? []) == [freshTemp, "catalog.json", ".x.tmp-1-0123456789ab", ".d.tmp-1-0123456789ab"])
        #expect(DurableFile.removeStaleTemps(in: dir + "/absent", now: now).isEmpty)
        // Any name when the caller says so (upload directories), still by age.
        #expect(Set(DurableFile.removeStaleTemps(in: dir, now: now + 2 * DurableFile.staleTempAge, isTemp: { $0 != "catalog.json" }))
            == [freshTemp, ".x.tmp-1-0123456789ab"])
    }

    /// appendLine ends each line, retries short writes, and cuts a torn tail (no newline) off
    /// before the next line; a file that is one torn line empties.
    @Test func appendLineRetriesShortWritesAndCutsATornTail() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/log.jsonl"
        try DurableFile.appendLine(Array("first".utf8), to: path)
        var calls = 0
        try DurableFile.appendLine(Array("second".utf8), to: path, using: { fd, bytes in
            calls += 1
            return write(fd, bytes.baseAddress, 1)   // one byte per call: seven short writes
        })
        #expect(calls == 7)
        #expect(try DurableFile.read(path) == Array("first\nsecond\n".utf8))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"torn".utf8))
        try handle.close()
        try DurableFile.appendLine(Array("third".utf8), to: path)
        #expect(try DurableFile.read(path) == Array("first\nsecond\nthird\n".utf8))

        try DurableFile.replace(path, with: Array(String(repeating: "y", count: 10_000).utf8))
        try DurableFile.appendLine(Array("only".utf8), to: path)
        #expect(try DurableFile.read(path) == Array("only\n".utf8))
    }

    @Test func appendLineFailsOnAFullDisk() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let failure = #expect(throws: IOFailure.self) {
            try DurableFile.appendLine([1, 2], to: dir + "/f", using: { _, _ in 0 })
        }
        #expect(failure?.isOutOfSpace == true)
    }
}
