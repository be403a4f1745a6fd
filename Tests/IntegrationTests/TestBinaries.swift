import Foundation

/// Where this build's executables are: beside the test runner, which is itself a product of the
/// same build (`.build/<triple>/<config>/<Package>PackageTests.xctest`), so any build path or
/// configuration works.
enum TestBinaries {
    static let productsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    static var modelctl: URL { productsDirectory.appendingPathComponent("modelctl") }
    static var modeld: URL { productsDirectory.appendingPathComponent("modeld") }
    static var modeldClient: URL { productsDirectory.appendingPathComponent("modeld-client") }
    static var mirrorJournalLoop: URL { productsDirectory.appendingPathComponent("mirror-journal-loop") }
    static var durableAppendLoop: URL { productsDirectory.appendingPathComponent("durable-append-loop") }
}
