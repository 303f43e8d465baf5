import Dispatch
public import Logging
import Synchronization

/// Deletes the expired `Idempotency-Key` rows in the background, on either storage (on the cluster through the
/// leader, like every write): the keyed writes never spend time on it.
///
/// Once a second it asks ``IdempotencyExpiry`` whether a pass is due (at most once per tenth of
/// `idempotency.retention`, between 1 s and 10 min), and then runs ``SQLiteService/expireIdempotencyKeys()`` on its
/// own queue: a pass over the table in short steps, each of which takes the local writer between write groups
/// (`DatabasePool.write`), as the maintenance scheduler does.
///
/// `@unchecked Sendable`: the timer is a Dispatch source (thread-safe, created once and never replaced); the
/// started flag lives behind a `Mutex`.
public final class IdempotencyExpiryScheduler: @unchecked Sendable {
    private let service: SQLiteService
    private let logger: Logger
    private let queue = DispatchQueue(label: "sqlited.idempotency-expiry")
    private let timer: any DispatchSourceTimer
    private let started = Mutex(false)

    public init(service: SQLiteService, logger: Logger) {
        self.service = service
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.tick() }
    }

    /// Starts the periodic passes (once; later calls do nothing).
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(200))
        timer.resume()
    }

    /// Stops the passes and waits for one in progress to finish.
    public func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit {
        // A source that was never resumed must not be released suspended.
        if !started.withLock({ $0 }) { timer.resume() }
        timer.cancel()
    }

    private func tick() {
        guard service.isAvailable, service.idempotencyExpiryIsDue() else { return }
        do throws(APIError) {
            try service.expireIdempotencyKeys()
        } catch {
            logger.notice("expiring idempotency keys failed; trying again later", metadata: ["error": "\(error)"])
        }
    }
}
