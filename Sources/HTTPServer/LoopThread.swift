import Glibc

/// A plain pthread running one closure: the engine uses no Dispatch and no async runtime.
struct LoopThread {
    private let thread: pthread_t

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    init(_ body: @escaping @Sendable () -> Void) throws(ServerError) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            throw .system("pthread_create", rc)
        }
        thread = t
    }

    func join() { pthread_join(thread, nil) }
}
