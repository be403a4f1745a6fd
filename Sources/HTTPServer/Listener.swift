import CLinuxShims
import Glibc

/// A non-blocking listening socket. Each loop owns one, bound with SO_REUSEPORT to the same
/// address, so the kernel spreads new connections across loops without a shared accept lock.
struct Listener {
    let fd: Int32

    /// Binds `host:port` (IPv4 or IPv6 literal); returns the listener and the bound port.
    static func bind(host: String, port: Int) throws(ServerError) -> (Listener, Int) {
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw ServerError("listen address '\(host)' is not an IPv4 or IPv6 literal")
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw .system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = family == AF_INET
            ? withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            : withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        if rc != 0 {
            let e = errno
            Glibc.close(fd)
            throw ServerError("bind \(host):\(port) failed: \(String(cString: strerror(e)))")
        }
        if listen(fd, 4096) != 0 {
            let e = errno
            Glibc.close(fd)
            throw .system("listen", e)
        }
        var bound = sockaddr_in6()
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        // sin_port and sin6_port sit at the same offset.
        return (Listener(fd: fd), Int(UInt16(bigEndian: bound.sin6_port)))
    }

    /// The next pending connection (non-blocking, close-on-exec) and its peer text, nil when none
    /// is pending; transient errors (ECONNABORTED, EMFILE) also yield nil so the loop moves on.
    func accept() -> (fd: Int32, peer: String)? {
        var addr = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    modeld_accept4(self.fd, $0, &len, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 { return (fd, Self.describe(&addr)) }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    private static func describe(_ addr: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: 64)
        if Int32(addr.ss_family) == AF_INET {
            return withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                    var ip = a.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, 64)
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        + ":\(UInt16(bigEndian: a.pointee.sin_port))"
                }
            }
        }
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                var ip = a.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, 64)
                return "[" + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    + "]:\(UInt16(bigEndian: a.pointee.sin6_port))"
            }
        }
    }

    func close() { Glibc.close(fd) }
}
