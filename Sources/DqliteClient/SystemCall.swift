// Linux only (MSG_NOSIGNAL, SOCK_CLOEXEC): the daemon's production platform.
import Glibc

/// The outcome of a non-blocking system call.
enum IOResult<Value> {
    case done(Value)
    case wouldBlock
}

/// The one place where DqliteClient makes system calls: retries `EINTR`, maps `EAGAIN` to `.wouldBlock`, and
/// throws `errno` together with the call's name.
enum SystemCall {
    static func run<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(DqliteError) -> IOResult<T> {
        while true {
            let result = body()
            guard result == -1 else { return .done(result) }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, EINPROGRESS: return .wouldBlock
            default: throw failure(name, code)
            }
        }
    }

    /// Runs a call that cannot block (socket setup); `EAGAIN` is an error there.
    @discardableResult
    static func check<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(DqliteError) -> T {
        switch try run(name, body) {
        case .done(let value): return value
        case .wouldBlock: throw failure(name, EAGAIN)
        }
    }

    /// Closes a descriptor. Never retried: on Linux the descriptor is released even when `close` reports `EINTR`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func failure(_ name: String, _ code: Int32) -> DqliteError {
        DqliteError(kind: .io, code: UInt64(code), message: "\(name): \(String(cString: strerror(code)))")
    }
}
