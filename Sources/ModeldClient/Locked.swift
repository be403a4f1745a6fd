import Foundation

/// A value behind an `NSLock`: the client's one lock. `Synchronization.Mutex` needs iOS 18 /
/// macOS 15 and the client builds for iOS 16 (SPEC §13.1); `package` so `modeld-client` shares it.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
