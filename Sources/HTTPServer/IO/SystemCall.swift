// Linux only (accept4, SOCK_NONBLOCK, MSG_NOSIGNAL): the daemon's production platform.
import Glibc

/// The outcome of a non-blocking system call.
enum IOResult<Value> {
    case done(Value)
    case wouldBlock
}

/// The one place where system calls are made: retries `EINTR`, maps `EAGAIN` to `.wouldBlock`, and throws
/// `errno` together with the call's name.
enum SystemCall {
    static func run<T: FixedWidthInteger>(
        _ name: String,
        _ body: () -> T
    ) throws(HTTPServerError) -> IOResult<T> {
        while true {
            let result = body()
            guard result == -1 else { return .done(result) }
            let error = errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw .systemCall(name, errno: error)
            }
        }
    }

    /// Runs a call that cannot block (socket setup); `EAGAIN` is an error there.
    @discardableResult
    static func check<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(HTTPServerError) -> T {
        switch try run(name, body) {
        case .done(let value): return value
        case .wouldBlock: throw .systemCall(name, errno: EAGAIN)
        }
    }

    /// Closes a descriptor. Never retried: on Linux the descriptor is released even when `close` reports `EINTR`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func errorString(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
