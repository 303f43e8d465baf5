import Foundation
import Glibc

/// Writes log lines to a descriptor (stderr) from a thread of its own, so that logging never waits for the reader.
///
/// The request log runs on the HTTP server's event loops, once per request. Written there directly, one `write(2)`
/// per line cost about 40% of `/query`'s requests/s, and a log reader that stops reading (journald under pressure,
/// a stuck pipe) would stop every connection of the loop with it. Here a caller appends its line to a buffer under
/// a lock and returns; the writer thread takes everything buffered and writes it in one call, so a busy server
/// writes large batches. Lines keep their order and are never split. When the reader falls more than
/// `maxBufferedBytes` behind, new lines are dropped and counted, and a notice with the count is written once the
/// reader catches up: the server keeps serving rather than wait for its log.
///
/// Lines are written within moments, not at once: ``flush(timeout:)`` waits until everything appended so far is
/// written, or for a few seconds at most (the daemon calls it before exiting). A crash loses what was still
/// buffered.
///
/// `@unchecked Sendable`: the mutable state lives behind `mutex` (a pthread mutex with two condition variables; the
/// writer waits on one, ``flush(timeout:)`` on the other).
final class LogSink: @unchecked Sendable {
    private let fd: Int32
    private let maxBufferedBytes: Int
    private let dropNotice: @Sendable (Int) -> String
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeWriter = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let progress = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var buffer: [UInt8] = []
    private var dropped = 0
    private var appended = 0
    private var written = 0
    private var stopping = false

    /// Starts the writer thread.
    ///
    /// - Parameters:
    ///   - fd: Where lines go; it is not closed.
    ///   - maxBufferedBytes: How far the reader may fall behind before lines are dropped.
    ///   - dropNotice: The line (with its newline) reporting that a number of lines were dropped.
    init(fd: Int32, maxBufferedBytes: Int = 1 << 20, dropNotice: @escaping @Sendable (Int) -> String) {
        self.fd = fd
        self.maxBufferedBytes = maxBufferedBytes
        self.dropNotice = dropNotice
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wakeWriter, nil)
        pthread_cond_init(progress, nil)
        let thread = Thread { [self] in runWriter() }
        thread.name = "sqlited.log"
        thread.start()
    }

    /// Queues `line` (which ends with its own newline); never blocks on the reader.
    func append(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            pthread_mutex_lock(mutex)
            guard !stopping, buffer.count + bytes.count <= maxBufferedBytes || buffer.isEmpty else {
                dropped += 1
                pthread_mutex_unlock(mutex)
                return
            }
            let wasIdle = buffer.isEmpty && dropped == 0
            buffer.append(contentsOf: bytes)
            appended += 1
            pthread_mutex_unlock(mutex)
            if wasIdle { pthread_cond_signal(wakeWriter) }
        }
    }

    /// Waits until every line appended before the call is written (or found unwritable), for at most `timeout`:
    /// a log reader that has stopped reading must not hold up a start, a reload or an exit for ever.
    ///
    /// - Returns: false when the time ran out first.
    @discardableResult
    func flush(timeout: Duration = .seconds(5)) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000
        )
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let target = appended
        while written < target {
            if pthread_cond_timedwait(progress, mutex, &deadline) == ETIMEDOUT {
                return written >= target
            }
        }
        return true
    }

    /// Writes what is buffered, then ends the writer thread; later lines are dropped.
    func close() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(wakeWriter)
        flush()
    }

    /// Lines dropped so far and not yet reported (for tests).
    var pendingDropCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return dropped
    }

    private func runWriter() {
        var batch: [UInt8] = []
        pthread_mutex_lock(mutex)
        while true {
            while buffer.isEmpty && dropped == 0 && !stopping {
                pthread_cond_wait(wakeWriter, mutex)
            }
            if buffer.isEmpty && dropped == 0 {
                pthread_mutex_unlock(mutex)
                return
            }
            swap(&batch, &buffer)
            let lines = appended - written
            let droppedLines = dropped
            dropped = 0
            pthread_mutex_unlock(mutex)

            if droppedLines > 0 {
                batch.append(contentsOf: dropNotice(droppedLines).utf8)
            }
            writeAll(batch)
            batch.removeAll(keepingCapacity: batch.capacity <= 1 << 20)

            pthread_mutex_lock(mutex)
            written += lines
            pthread_cond_broadcast(progress)
        }
    }

    /// Writes `bytes` completely; gives up on an error other than an interruption (nowhere to report it).
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if count > 0 {
                    offset += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    // A non-blocking descriptor (inherited that way): wait until it takes more.
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 1000)
                } else {
                    return
                }
            }
        }
    }
}
