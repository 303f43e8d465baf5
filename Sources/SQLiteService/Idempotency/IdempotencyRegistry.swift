import Synchronization

/// The keyed write requests running on this node now, so that the same key sent again meanwhile is answered 409
/// `IDEMPOTENCY_IN_PROGRESS` (or 422 `IDEMPOTENCY_KEY_REUSED` for another request) at once, without running.
///
/// A key is claimed when its request has been decoded and checked, before it is queued for the writer, and released
/// just before its answer is sent (after its `COMMIT`). Another node's running requests are not known here: there
/// the stored row decides (see ``IdempotentWrite``).
final class IdempotencyRegistry: Sendable {
    private let running = Mutex<[IdempotencyKey: IdempotencyFingerprint]>([:])

    init() {}

    /// Claims `key` for a request with `fingerprint`.
    ///
    /// - Throws: 409 `IDEMPOTENCY_IN_PROGRESS` with `Retry-After` when the same request holds it now; 422
    ///   `IDEMPOTENCY_KEY_REUSED` when another request (method, target or body) does.
    func claim(_ key: IdempotencyKey, _ fingerprint: IdempotencyFingerprint) throws(APIError) -> IdempotencyClaim {
        let holder = running.withLock { running -> IdempotencyFingerprint? in
            if let holder = running[key] { return holder }
            running[key] = fingerprint
            return nil
        }
        guard let holder else { return IdempotencyClaim(key: key, registry: self) }
        throw holder == fingerprint ? .idempotencyInProgress : .idempotencyKeyReused
    }

    fileprivate func release(_ key: IdempotencyKey) {
        _ = running.withLock { $0.removeValue(forKey: key) }
    }

    /// How many keys are claimed now (for tests).
    var count: Int {
        running.withLock { $0.count }
    }
}

/// One request's hold on its key (``IdempotencyRegistry/claim(_:_:)``), released once.
final class IdempotencyClaim: Sendable {
    let key: IdempotencyKey
    private let registry: IdempotencyRegistry
    private let released = Atomic<Bool>(false)

    fileprivate init(key: IdempotencyKey, registry: IdempotencyRegistry) {
        self.key = key
        self.registry = registry
    }

    /// Frees the key for the next request (later calls do nothing).
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        registry.release(key)
    }

    deinit {
        // A request dropped before its answer (a body that failed to queue) must not hold its key for ever.
        release()
    }
}
