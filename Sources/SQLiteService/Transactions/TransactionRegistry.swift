import Dispatch
import Synchronization

/// The open interactive transactions of this process, by ID: who may use each (its token), whether a request is
/// using it now, and when it expires.
///
/// - IDs are 128 random bits from `SystemRandomNumberGenerator` (the system's CSPRNG), in hex: unguessable, and
///   meaningless to another token (404 as if unknown).
/// - One request at a time per transaction (``checkOut(_:token:now:)``): a second gets 409 `TRANSACTION_BUSY`.
/// - Expiry: a transaction idle longer than its idle timeout, or open longer than the lifetime limit, is rolled
///   back by a sweep that runs every ``sweepInterval`` while transactions are open (on ``sweepQueue``, never on a
///   request's thread), and its ID is remembered for ``expiredMemory`` so that its 404 can say "expired". A
///   transaction in use is never expired under its request: its expiry is checked when the request ends.
/// - The `read_only` ones are counted against `limits.max_read_transactions` (``reserveReader(limit:)``).
final class TransactionRegistry: Sendable {
    /// How often expired transactions are looked for.
    static let sweepInterval: Duration = .milliseconds(100)
    /// How long an expired transaction's ID is remembered for its 404's message.
    static let expiredMemory: Duration = .seconds(600)
    /// Most expired IDs remembered at once (the oldest are forgotten first).
    static let expiredMemoryLimit = 10_000

    private struct Entry {
        let handle: any TransactionHandle
        let token: String?
        let opened: ContinuousClock.Instant
        let idleTimeout: Duration
        let maxLifetime: Duration
        var lastUsed: ContinuousClock.Instant
        var isBusy = false

        func hasExpired(at now: ContinuousClock.Instant) -> Bool {
            now - lastUsed >= idleTimeout || now - opened >= maxLifetime
        }
    }

    private struct State {
        var open: [String: Entry] = [:]
        /// Expired IDs, with their token and when they expired, oldest first.
        var expired: [(id: String, token: String?, at: ContinuousClock.Instant)] = []
        var readTransactions = 0
        var sweepScheduled = false
        /// Shutting down: no transaction opens any more.
        var isClosing = false
        /// Shut down: every transaction is rolled back, also one in use, as its request ends.
        var isClosed = false
    }

    private let state = Mutex(State())
    private let sweepQueue = DispatchQueue(label: "sqlited.transactions.expiry")
    /// Told of every transaction the sweep rolled back.
    private let onExpiry = Mutex<StoredClosure<any TransactionHandle, Void>?>(nil)

    init() {}

    /// Sets what is told of every transaction the sweep rolls back (the service counts them).
    func setExpiryObserver(_ observer: @escaping @Sendable (any TransactionHandle) -> Void) {
        onExpiry.withLock { $0 = StoredClosure(observer) }
    }

    /// A new transaction ID: 128 random bits in hex.
    static func makeID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Counts a `read_only` transaction about to open; false when `limit` are open already.
    func reserveReader(limit: Int) -> Bool {
        state.withLock { state in
            guard state.readTransactions < max(1, limit) else { return false }
            state.readTransactions += 1
            return true
        }
    }

    /// Gives back a reservation whose transaction did not open.
    func cancelReader() {
        state.withLock { $0.readTransactions -= 1 }
    }

    /// Registers an open transaction; returns its ID.
    func register(
        _ handle: any TransactionHandle,
        token: String?,
        idleTimeout: Duration,
        maxLifetime: Duration
    ) -> String {
        let id = Self.makeID()
        let now = ContinuousClock.now
        let scheduleSweep = state.withLock { state in
            state.open[id] = Entry(
                handle: handle,
                token: token,
                opened: now,
                idleTimeout: idleTimeout,
                maxLifetime: maxLifetime,
                lastUsed: now
            )
            defer { state.sweepScheduled = true }
            return !state.sweepScheduled
        }
        if scheduleSweep { scheduleNextSweep() }
        return id
    }

    /// Takes transaction `id` for one request of `token`.
    ///
    /// - Throws: 404 `NO_SUCH_TRANSACTION` for an ID unknown to `token` (the message says "expired" when it expired
    ///   in the last ``expiredMemory``), 409 `TRANSACTION_BUSY` while another request uses it.
    func checkOut(
        _ id: String,
        token: String?,
        now: ContinuousClock.Instant = .now
    ) throws(APIError) -> any TransactionHandle {
        let outcome: Result<any TransactionHandle, APIError> = state.withLock { state in
            guard var entry = state.open[id], entry.token == token else {
                let expired = state.expired.contains {
                    $0.id == id && $0.token == token && now - $0.at < Self.expiredMemory
                }
                return .failure(expired ? .transactionExpired : .noSuchTransaction)
            }
            guard !entry.isBusy else { return .failure(.transactionBusy) }
            entry.isBusy = true
            state.open[id] = entry
            return .success(entry.handle)
        }
        return try outcome.get()
    }

    /// Gives transaction `id` back after a request: it stays open when its handle still is, else it is forgotten.
    func checkIn(_ id: String, now: ContinuousClock.Instant = .now) {
        let ended: (any TransactionHandle)? = state.withLock { state in
            guard var entry = state.open[id] else { return nil }
            guard entry.handle.isOpen, !state.isClosed else {
                forget(id, entry, in: &state)
                return entry.handle
            }
            entry.isBusy = false
            entry.lastUsed = now
            state.open[id] = entry
            return nil
        }
        ended?.rollback()
    }

    /// Forgets transaction `id` (committed or rolled back by its request, which holds it).
    func finish(_ id: String) {
        state.withLock { state in
            guard let entry = state.open[id] else { return }
            forget(id, entry, in: &state)
        }
    }

    private func forget(_ id: String, _ entry: Entry, in state: inout State) {
        state.open[id] = nil
        if entry.handle.isReadOnly { state.readTransactions -= 1 }
    }

    /// Rolls back every transaction idle or open too long (not those in use); returns how many.
    @discardableResult
    func expire(now: ContinuousClock.Instant = .now) -> Int {
        let expired: [any TransactionHandle] = state.withLock { state in
            var handles: [any TransactionHandle] = []
            for (id, entry) in state.open where !entry.isBusy && entry.hasExpired(at: now) {
                forget(id, entry, in: &state)
                state.expired.append((id, entry.token, now))
                handles.append(entry.handle)
            }
            state.expired.removeAll { now - $0.at >= Self.expiredMemory }
            if state.expired.count > Self.expiredMemoryLimit {
                state.expired.removeFirst(state.expired.count - Self.expiredMemoryLimit)
            }
            return handles
        }
        let observer = onExpiry.withLock { $0 }
        for handle in expired {
            handle.rollback()
            observer?(handle)
        }
        return expired.count
    }

    /// Whether the server is shutting down (``beginClosing()``): no transaction opens any more.
    var isClosing: Bool {
        state.withLock { $0.isClosing }
    }

    /// Shutdown begins: the open transactions go on, no new one opens.
    func beginClosing() {
        state.withLock { $0.isClosing = true }
    }

    /// Shutdown's end: rolls back every open transaction not in use now, and the others as their request ends;
    /// returns how many were rolled back now.
    @discardableResult
    func rollBackAll() -> Int {
        let handles: [any TransactionHandle] = state.withLock { state in
            state.isClosing = true
            state.isClosed = true
            var handles: [any TransactionHandle] = []
            for (id, entry) in state.open where !entry.isBusy {
                forget(id, entry, in: &state)
                handles.append(entry.handle)
            }
            return handles
        }
        for handle in handles { handle.rollback() }
        return handles.count
    }

    /// How many transactions are open: all, and the `read_only` ones.
    var counts: (open: Int, readOnly: Int) {
        state.withLock { ($0.open.count, $0.readTransactions) }
    }

    private func scheduleNextSweep() {
        sweepQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in
            guard let self else { return }
            self.expire()
            let again = self.state.withLock { state in
                state.sweepScheduled = !state.open.isEmpty
                return state.sweepScheduled
            }
            if again { self.scheduleNextSweep() }
        }
    }
}

extension APIError {
    /// 404 for a transaction ID unknown to the token (never opened, finished, or another token's).
    static var noSuchTransaction: APIError {
        APIError(status: 404, code: "NO_SUCH_TRANSACTION", message: "no such transaction")
    }

    /// 404 for a transaction of the token that expired lately.
    static var transactionExpired: APIError {
        APIError(
            status: 404,
            code: "NO_SUCH_TRANSACTION",
            message: "no such transaction: it expired (idle or open too long) and was rolled back"
        )
    }

    /// 409 while another request uses the transaction.
    static var transactionBusy: APIError {
        APIError(
            status: 409,
            code: "TRANSACTION_BUSY",
            message: "another request of this transaction is running",
            headers: [(name: "Retry-After", value: "1")]
        )
    }

    /// 503 past `limits.max_read_transactions`.
    static func tooManyTransactions(_ limit: Int) -> APIError {
        APIError(
            status: 503,
            code: "TOO_MANY_TRANSACTIONS",
            message: "\(limit) read_only transactions are open, the most allowed; try again later",
            headers: [(name: "Retry-After", value: "1")]
        )
    }
}
