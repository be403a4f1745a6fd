// A pthread mutex + condition variable: the access-log writer thread sleeps on it with a
// timeout, and `flush()` waits on it (Synchronization's Mutex has no condition variable).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Invariant: the pthread objects live at stable heap addresses for the object's lifetime and
// are only used through pthread calls, which are thread-safe.
final class AccessLogCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// With the lock held: sleeps until signalled, or at most `nanoseconds` (spurious wake-ups possible).
    func wait(nanoseconds: Int? = nil) {
        guard let nanoseconds else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
