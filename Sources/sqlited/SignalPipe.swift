import Dispatch
import Glibc

/// Turns SIGTERM, SIGINT and SIGHUP into calls on a serial queue, losing none.
///
/// The handler is installed with `sigaction` (synchronous: once ``start(queue:handler:)`` returns, every such
/// signal is caught) and only writes the signal number into a pipe, the one async-signal-safe thing it can do; a
/// Dispatch read source on the pipe calls `handler` on the queue. Dispatch signal sources were not used because
/// they are registered asynchronously after `resume()`, so a signal arriving right after start (a fast `systemctl
/// stop`) could be ignored.
enum SignalPipe {
    // Written once in `start` before the handlers are installed, then only read (by the handler).
    nonisolated(unsafe) private static var writeDescriptor: Int32 = -1

    /// Installs the handlers for `signals` and returns the read source to keep alive.
    static func start(
        signals: [Int32],
        queue: DispatchQueue,
        handler: @escaping @Sendable (Int32) -> Void
    ) throws -> any DispatchSourceRead {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw StartupError("pipe failed: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors {
            // Non-blocking: the handler must never block, and the reader drains until EAGAIN.
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        let readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        let source = DispatchSource.makeReadSource(fileDescriptor: readDescriptor, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readDescriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                for number in buffer[0..<count] { handler(Int32(number)) }
            }
        }
        source.resume()
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalPipe.writeDescriptor, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            guard sigaction(number, &action, nil) == 0 else {
                throw StartupError("sigaction failed: \(String(cString: strerror(errno)))")
            }
        }
        // A parent may have started us with these signals blocked (the mask survives exec: Foundation's `Process`,
        // a test runner or a shell script that blocked them); caught but blocked, SIGTERM would wait forever.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in signals { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        return source
    }
}
