import Foundation
import Glibc

/// Writes log lines to a descriptor (stderr) from a thread of its own, so that logging never waits for the reader.
///
/// The request log runs on the HTTP server's event loops, once per request. Written there directly, one `write(2)`
/// per line cost about 40% of `/query`'s requests/s, and a log reader that stops reading (journald under pressure,
/// a stuck pipe) would stop every connection of the loop with it. Here a caller appends its line to a buffer under
/// a lock and returns; the writer thread takes everything buffered and writes it in one call. Lines keep their order
/// and are never split.
///
/// The hand-over is batched: waking the writer for every line cost a futex wake and two context switches per
/// request (about 30% of a pinned core's time at the default request log level). An append wakes the writer only
/// when it was parked with nothing to do, or when the buffer has just grown past `wakeBytes`; once awake, the writer
/// gathers lines for up to `batchInterval` before it writes them, and loops without parking while lines keep
/// coming. A busy server thus wakes it about once per interval (or per `wakeBytes` written), not once per request. When the reader falls more than
/// `maxBufferedBytes` behind, new lines are dropped and counted, and a notice with the count is written once the
/// reader catches up: the server keeps serving rather than wait for its log.
///
/// Lines are written within `batchInterval` (plus the write itself), not at once: ``flush(timeout:)`` waits until everything appended so far is
/// written, or for a few seconds at most (the daemon calls it before exiting). A crash loses what was still
/// buffered.
///
/// The writer writes to a duplicate of the descriptor it was given, which it closes when it ends: the caller may
/// close its own descriptor once ``close()`` returns, even when a stalled reader kept the writer from finishing
/// in time (the writer's bytes then still go to the same file, never to whatever reuses the number).
///
/// `@unchecked Sendable`: the mutable state lives behind `mutex` (a pthread mutex with two condition variables; the
/// writer waits on one, ``flush(timeout:)`` on the other).
final class LogSink: @unchecked Sendable {
    /// The writer's own duplicate of the descriptor given (or that descriptor itself when it could not be
    /// duplicated, then never closed here).
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let maxBufferedBytes: Int
    private let dropNotice: @Sendable (Int) -> String
    private let batchInterval: Duration
    private let wakeBytes: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeWriter = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let progress = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`, which already makes every access exclusive: `@exclusivity(unchecked)` drops the runtime's
    // dynamic check of each access (two per request log line, about 80 instructions each).
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    @exclusivity(unchecked) private var dropped = 0
    @exclusivity(unchecked) private var appended = 0
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) private var stopping = false
    /// The writer waits for an append with nothing buffered (the only time an append must wake it).
    @exclusivity(unchecked) private var writerParked = false
    /// A ``flush(timeout:)`` waits: write what is buffered without gathering more.
    @exclusivity(unchecked) private var flushWanted = false
    /// The writer thread has ended (and closed its descriptor).
    @exclusivity(unchecked) private var writerEnded = false

    /// Starts the writer thread.
    ///
    /// - Parameters:
    ///   - fd: Where lines go; the sink writes to a duplicate of it, so the caller keeps (and closes) its own.
    ///   - maxBufferedBytes: How far the reader may fall behind before lines are dropped.
    ///   - batchInterval: How long the writer, once woken, gathers lines before writing them.
    ///   - wakeBytes: A buffer this large wakes the writer before its interval is over (at most half of
    ///     `maxBufferedBytes`, so that a burst is written before lines are dropped).
    ///   - dropNotice: The line (with its newline) reporting that a number of lines were dropped.
    init(
        fd: Int32,
        maxBufferedBytes: Int = 1 << 20,
        batchInterval: Duration = .milliseconds(20),
        wakeBytes: Int = 64 << 10,
        dropNotice: @escaping @Sendable (Int) -> String
    ) {
        let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        self.fd = duplicate >= 0 ? duplicate : fd
        self.ownsDescriptor = duplicate >= 0
        self.maxBufferedBytes = maxBufferedBytes
        self.batchInterval = batchInterval
        self.wakeBytes = max(1, min(wakeBytes, maxBufferedBytes / 2))
        self.dropNotice = dropNotice
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wakeWriter, &attributes)
        pthread_condattr_destroy(&attributes)
        pthread_cond_init(progress, nil)
        let thread = Thread { [self] in runWriter() }
        thread.name = "sqlited.log"
        thread.start()
    }

    /// Queues `line` (which ends with its own newline); never blocks on the reader.
    func append(_ line: String) {
        var line = line
        line.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Queues one line's bytes (ending with its newline); never blocks on the reader.
    func append(_ bytes: UnsafeRawBufferPointer) {
        pthread_mutex_lock(mutex)
        let before = buffer.count
        guard !stopping, before + bytes.count <= maxBufferedBytes || before == 0 else {
            dropped += 1
            pthread_mutex_unlock(mutex)
            return
        }
        buffer.append(contentsOf: bytes)
        appended += 1
        let wake = writerParked || (before < wakeBytes && buffer.count >= wakeBytes)
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(wakeWriter) }
    }

    /// Waits until every line appended before the call is written (or found unwritable), for at most `timeout`:
    /// a log reader that has stopped reading must not hold up a start, a reload or an exit for ever.
    ///
    /// - Returns: false when the time ran out first.
    @discardableResult
    func flush(timeout: Duration = .seconds(5)) -> Bool {
        var deadline = Self.deadline(CLOCK_REALTIME, after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let target = appended
        if written < target {
            flushWanted = true
            pthread_cond_signal(wakeWriter)
        }
        while written < target {
            if pthread_cond_timedwait(progress, mutex, &deadline) == ETIMEDOUT {
                return written >= target
            }
        }
        return true
    }

    /// Writes what is buffered, then ends the writer thread; later lines are dropped. Waits for the writer to end,
    /// for at most `timeout` (a reader that has stopped reading must not hold up an exit for ever).
    ///
    /// - Returns: false when the time ran out first (the writer ends, and closes its descriptor, when its last
    ///   write returns).
    @discardableResult
    func close(timeout: Duration = .seconds(5)) -> Bool {
        var deadline = Self.deadline(CLOCK_REALTIME, after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        stopping = true
        pthread_cond_signal(wakeWriter)
        while !writerEnded {
            if pthread_cond_timedwait(progress, mutex, &deadline) == ETIMEDOUT {
                return writerEnded
            }
        }
        return true
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
                writerParked = true
                pthread_cond_wait(wakeWriter, mutex)
                writerParked = false
            }
            if buffer.isEmpty && dropped == 0 {
                if ownsDescriptor { Glibc.close(fd) }
                writerEnded = true
                pthread_cond_broadcast(progress)
                pthread_mutex_unlock(mutex)
                return
            }
            if !stopping && !flushWanted && buffer.count < wakeBytes {
                // Gather a batch. One wait: a wake-up (more bytes, a flush, a close) ends it early.
                var deadline = Self.deadline(CLOCK_MONOTONIC, after: batchInterval)
                _ = pthread_cond_timedwait(wakeWriter, mutex, &deadline)
            }
            flushWanted = false
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

    /// `clock`'s time now plus `duration`, for a condition variable's timed wait (`wakeWriter` waits on
    /// `CLOCK_MONOTONIC`, `progress` on the default `CLOCK_REALTIME`).
    private static func deadline(_ clock: clockid_t, after duration: Duration) -> timespec {
        var now = timespec()
        clock_gettime(clock, &now)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(
            tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000,
            tv_nsec: nanoseconds % 1_000_000_000
        )
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
