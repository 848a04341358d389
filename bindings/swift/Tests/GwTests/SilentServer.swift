import Foundation

#if canImport(Glibc)
    import Glibc
    private let closeSocket = Glibc.close
#elseif canImport(Darwin)
    import Darwin
    private let closeSocket = Darwin.close
#endif

/// A loopback TCP listener that never answers: with `accepting` false it never accepts and
/// its backlog is filled, so a connect to it hangs (the connect phase); with `accepting` true
/// it accepts and never reads, so a large upload blocks once the socket buffers are full.
final class SilentServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private var fillers: [Int32] = []
    private var accepted: [Int32] = []
    private let lock = NSLock()
    private var closed = false

    init(accepting: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0, listen(fd, accepting ? 16 : 0) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        port = UInt16(bigEndian: addr.sin_port)
        if accepting {
            let listener = fd
            Thread.detachNewThread { [self] in
                while true {
                    let c = accept(listener, nil, nil)
                    if c < 0 { return }
                    // A small receive buffer so the sender blocks early.
                    var size: Int32 = 4096
                    setsockopt(c, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                    lock.locked { accepted.append(c) }
                }
            }
        } else {
            // Fill the accept queue: later SYNs are dropped, so connects hang.
            for _ in 0..<3 {
                let c = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
                _ = withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(c, $0, len) }
                }
                fillers.append(c)
            }
            usleep(50_000)
        }
    }

    func close() {
        lock.locked {
            if closed { return }
            closed = true
            shutdown(fd, Int32(SHUT_RDWR))
            _ = closeSocket(fd)
            for c in fillers + accepted { _ = closeSocket(c) }
        }
    }

    deinit { close() }
}
