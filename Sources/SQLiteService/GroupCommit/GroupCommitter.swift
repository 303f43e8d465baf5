import Dispatch
import Logging
import Synchronization

/// One write request waiting for, or taking part in, a group.
///
/// Its closures are called only by the group's leader, while the request's own thread waits on ``wakeUp`` — or, for
/// a deferred request (``onComplete``), while no thread waits for it at all: the request's state is never touched by
/// two threads at once, and the semaphore (or the leader calling ``onComplete`` itself) orders the leader's writes
/// before the request reads its outcome.
final class GroupTicket<Unit>: @unchecked Sendable {
    /// The request's size, time limits, and whether it may run alone in autocommit mode.
    let request: GroupRequest
    /// Runs the request in its own savepoint on the writer, keeping its outcome; true when it succeeded.
    private var runBody: ((Unit) -> Bool)?
    /// Replaces the request's outcome with a failure.
    private var failBody: ((APIError) -> Void)?
    /// Signalled once: when the request's group is over, or when the request becomes the next group's leader.
    let wakeUp = DispatchSemaphore(value: 0)
    /// Whether this request leads a group (guarded by the committer's lock).
    var isLeader = false
    /// For a deferred request: called by the leader once the request's outcome is final, instead of waking a
    /// waiting thread. A deferred request never leads a group (no thread of its own to lead with).
    private let onComplete: (() -> Void)?

    init(
        _ request: GroupRequest,
        run: @escaping (Unit) -> Bool,
        fail: @escaping (APIError) -> Void,
        onComplete: (() -> Void)? = nil
    ) {
        self.request = request
        self.runBody = run
        self.failBody = fail
        self.onComplete = onComplete
    }

    /// Whether the request is deferred (see ``onComplete``).
    var isDeferred: Bool {
        onComplete != nil
    }

    /// Tells the request its outcome is final: wakes its thread, or calls ``onComplete``.
    func complete() {
        if let onComplete {
            onComplete()
            finish()
        } else {
            wakeUp.signal()
        }
    }

    /// Runs the request (see ``init(_:run:fail:onComplete:)``).
    func run(_ unit: Unit) -> Bool {
        runBody?(unit) ?? false
    }

    /// Replaces the request's outcome with a failure.
    func fail(_ error: APIError) {
        failBody?(error)
    }

    /// Drops the closures once the request's outcome is final: they capture the request's non-escaping body, which
    /// must not outlive the request's call (the leader may still hold the ticket a moment longer).
    func finish() {
        runBody = nil
        failBody = nil
    }
}

/// Forms groups of write requests and commits each group with one transaction, on the storage `Writer` names: the
/// local writer (``LocalGroupWriter``: one fsync per group) or the cluster's leader (``ClusterGroupWriter``: one Raft
/// entry per group). The one implementation of group commit; what differs between the storages is the writer.
///
/// Thread model: no thread of its own. A request that arrives while no group is running becomes the leader: it
/// takes the writer (``GroupWriter/withUnit(_:)``, once per group), runs `BEGIN IMMEDIATE`, the bodies of the requests
/// queued so far (its own first) each in its own savepoint, `COMMIT`, and then wakes every member of the group. The
/// requests that arrived meanwhile wait in the queue; the leader hands the lead to the first of them and returns to
/// answer its own request. So a lone request on an idle writer commits at once on its own thread (no timer, no
/// hand-off), the writer is free between groups for anyone else who takes it (local maintenance calls
/// `pool.write`), and no leader answers later than the group it led.
///
/// Deferred requests (``submitDeferred(_:in:)``, the event loops' writes) have no thread
/// waiting: when one finds no leader, or is next in line when a group ends, ``leaderQueue`` leads, group after
/// group, until the queue is empty or a waiting request's thread can take over. No thread blocks per request, and
/// the leader finishes a whole group's requests in one go.
final class GroupCommitter<Writer: GroupWriter>: Sendable {
    private struct Queue {
        var waiting: [GroupTicket<Writer.Unit>] = []
        var hasLeader = false
        /// The options and metrics of the latest request, read by every group's leader as it takes the group (a
        /// reload then applies from the next group, however long ``leaderQueue`` keeps leading).
        var latest: (options: GroupCommitOptions, metrics: ServiceMetrics?) = (GroupCommitOptions(), nil)
    }

    /// Who leads the next group, decided when a group ends.
    private enum Handover {
        /// Nobody: the queue is empty.
        case none
        /// The first waiting request's own thread.
        case ticket(GroupTicket<Writer.Unit>)
        /// ``leaderQueue``, for a deferred request first in line.
        case leaderQueue
    }

    private let queue = Mutex(Queue())
    /// Leads the groups whose first request is deferred (a serial queue: one group at a time).
    private let leaderQueue = DispatchQueue(label: "sqlited.group-commit")
    /// Runs on the writer just before each group's `COMMIT` (tests use it to make the `COMMIT` itself fail).
    let beforeCommit = Mutex<StoredClosure<Writer.Unit, Void>?>(nil)

    init() {}

    /// Runs `ticket` in a group; returns once its outcome is final (committed, or failed).
    func submit(_ ticket: GroupTicket<Writer.Unit>, in context: GroupContext<Writer>) {
        if !enqueue(ticket, in: context) {
            ticket.wakeUp.wait()
            guard queue.withLock({ _ in ticket.isLeader }) else { return }
        }
        let group = run(writer: context.writer, logger: context.logger)
        switch handOver() {
        case .none: break
        case .ticket(let next): next.wakeUp.signal()
        case .leaderQueue: leadDeferred(writer: context.writer, logger: context.logger)
        }
        for member in group where member !== ticket {
            member.complete()
        }
    }

    /// Queues a deferred `ticket` (one with `onComplete`) and returns at once; the group's leader completes it.
    func submitDeferred(_ ticket: GroupTicket<Writer.Unit>, in context: GroupContext<Writer>) {
        precondition(ticket.isDeferred, "submitDeferred takes deferred tickets")
        if enqueue(ticket, in: context) {
            leadDeferred(writer: context.writer, logger: context.logger)
        }
    }

    /// Queues `ticket`; returns whether it takes the lead (no group was running). A waiting ticket that leads is
    /// marked so; a deferred one's lead goes to ``leaderQueue``.
    private func enqueue(_ ticket: GroupTicket<Writer.Unit>, in context: GroupContext<Writer>) -> Bool {
        queue.withLock { queue in
            queue.latest = (context.options, context.metrics)
            queue.waiting.append(ticket)
            if queue.hasLeader { return false }
            queue.hasLeader = true
            if !ticket.isDeferred { ticket.isLeader = true }
            return true
        }
    }

    /// Has ``leaderQueue`` lead groups while the first waiting request is deferred (the lead is already taken for
    /// it in the queue's state).
    private func leadDeferred(writer: Writer, logger: Logger) {
        leaderQueue.async { [self] in
            while true {
                let group = run(writer: writer, logger: logger)
                let next = handOver()
                if case .ticket(let ticket) = next { ticket.wakeUp.signal() }
                for member in group { member.complete() }
                guard case .leaderQueue = next else { return }
            }
        }
    }

    /// Decides who leads the next group once one ends: a waiting request's thread, ``leaderQueue`` when the first
    /// in line is deferred, or nobody.
    private func handOver() -> Handover {
        queue.withLock { queue in
            guard let first = queue.waiting.first else {
                queue.hasLeader = false
                return .none
            }
            if first.isDeferred { return .leaderQueue }
            first.isLeader = true
            return .ticket(first)
        }
    }

    /// The next group: the longest prefix of `waiting` within the limits (at least one request).
    private static func takeGroup(
        from waiting: inout [GroupTicket<Writer.Unit>],
        options: GroupCommitOptions
    ) -> [GroupTicket<Writer.Unit>] {
        var count = 0
        var bytes = 0
        while count < waiting.count, count < max(1, options.maxRequests) {
            let size = waiting[count].request.bytes
            if count > 0, bytes + size > options.maxBytes { break }
            bytes += size
            count += 1
        }
        let group = Array(waiting.prefix(count))
        waiting.removeFirst(count)
        return group
    }

    /// Takes the next group once the writer is ours (so that every request that arrived while the writer was busy
    /// joins it), runs it and commits it; returns the group.
    ///
    /// While an interactive transaction holds the writer (``WriterLease``) the leader waits for it until the first
    /// request's ``GroupTicket/writerWaitLimit``; if it comes first, the requests whose limit has passed (the first
    /// among them) fail with 503 `SQLITE_BUSY` unrun and are returned as the group, and the next leader waits for
    /// the rest.
    private func run(writer: Writer, logger: Logger) -> [GroupTicket<Writer.Unit>] {
        var group: [GroupTicket<Writer.Unit>] = []
        let waitLimit = queue.withLock { $0.waiting.first?.request.writerWaitLimit }
        do throws(APIError) {
            let waitFailure = try writer.withUnit(waitingUntil: waitLimit) { unit in
                var metrics: ServiceMetrics?
                (group, metrics) = queue.withLock { queue in
                    (Self.takeGroup(from: &queue.waiting, options: queue.latest.options), queue.latest.metrics)
                }
                if group.count == 1, group[0].request.isOneTransaction {
                    Self.runAlone(group[0], writer: writer, on: unit, metrics: metrics)
                    return
                }
                defer {
                    if writer.isInTransaction(unit) {
                        logger.warning("rolling back a group transaction left open")
                        writer.rollback(unit)
                    }
                }
                let committed = Self.runBodies(group, writer: writer, on: unit)
                guard !committed.isEmpty else {
                    writer.rollback(unit)
                    return
                }
                if let hook = beforeCommit.withLock({ $0 }) { hook(unit) }
                let started = ContinuousClock.now
                do throws(APIError) {
                    try writer.commit(unit)
                } catch {
                    if committed.count > 1, writer.checksDeferredConstraintsAtCommitOnly,
                        Self.isDeferredConstraintFailure(error)
                    {
                        // One request's fault that no savepoint's end could see (the cluster cannot check the deferred
                        // foreign keys there): each request runs again in a transaction of its own, so only the
                        // culprit fails, as on its own.
                        for member in committed { Self.runInOwnTransaction(member, writer: writer, on: unit) }
                        return
                    }
                    for member in committed { member.fail(error) }
                    return
                }
                metrics?.recordGroupCommit(requests: group.count, duration: ContinuousClock.now - started)
            }
            if let waitFailure, group.isEmpty {
                let now = ContinuousClock.now
                group = queue.withLock { queue in
                    var expired: [GroupTicket<Writer.Unit>] = []
                    let first = queue.waiting.first
                    queue.waiting.removeAll { ticket in
                        let due = ticket === first || (ticket.request.writerWaitLimit.map { $0 <= now } ?? false)
                        if due { expired.append(ticket) }
                        return due
                    }
                    return expired
                }
                for member in group { member.fail(waitFailure) }
            }
        } catch {
            if group.isEmpty {
                group = queue.withLock { queue in Self.takeGroup(from: &queue.waiting, options: queue.latest.options) }
            }
            for member in group { member.fail(error) }
        }
        return group
    }

    /// Runs a group of one request whose work is one transaction in autocommit mode, as with group commit off: its
    /// own `COMMIT` is the group's, without `BEGIN IMMEDIATE`, a savepoint and their release around it (a lone
    /// request on an idle writer pays nothing for group commit). ``beforeCommit`` does not run for it.
    private static func runAlone(
        _ member: GroupTicket<Writer.Unit>,
        writer: Writer,
        on unit: Writer.Unit,
        metrics: ServiceMetrics?
    ) {
        if let deadline = member.request.deadline, ContinuousClock.now >= deadline {
            member.fail(.timeout("the request's time limit was reached while it waited for the writer"))
            return
        }
        let started = ContinuousClock.now
        let succeeded = member.run(unit)
        if writer.isInTransaction(unit) {
            // Only COMMIT or ROLLBACK end a transaction, and the policy refuses both to requests.
            writer.rollback(unit)
            member.fail(.internal("the request left a transaction open"))
            return
        }
        if succeeded { metrics?.recordGroupCommit(requests: 1, duration: ContinuousClock.now - started) }
    }

    /// Whether a failed `COMMIT` is a deferred constraint's (`SQLITE_CONSTRAINT`, a deferred foreign key).
    private static func isDeferredConstraintFailure(_ error: APIError) -> Bool {
        error.sqliteCode.map { $0 & 0xff == 19 } == true
    }

    /// Runs `member` alone in a transaction of its own and commits it (after a group's `COMMIT` failed on a
    /// deferred constraint).
    private static func runInOwnTransaction(_ member: GroupTicket<Writer.Unit>, writer: Writer, on unit: Writer.Unit) {
        do throws(APIError) {
            try writer.begin(unit)
        } catch {
            member.fail(error)
            return
        }
        let succeeded = member.run(unit)
        guard writer.isInTransaction(unit) else {
            if succeeded { member.fail(.transactionLost) }
            return
        }
        guard succeeded else {
            writer.rollback(unit)
            return
        }
        do throws(APIError) {
            try writer.commit(unit)
        } catch {
            member.fail(error)
        }
    }

    /// How many requests wait for a group now (for tests).
    var queuedCount: Int {
        queue.withLock { $0.waiting.count }
    }

    /// Runs the bodies of `group` in one transaction, each in its own savepoint; returns the members that
    /// succeeded, whose work the transaction holds (empty when nothing is left to commit).
    ///
    /// SQLite rolls the whole transaction back on its own when some statements fail (an interrupted write — the
    /// request's time limit —, a full disk, an I/O error): the members that had succeeded before lost their work
    /// through no fault of their own, so they run again, in a new transaction, ahead of the rest. Each such restart
    /// drops the member that caused it, so this ends.
    private static func runBodies(
        _ group: [GroupTicket<Writer.Unit>],
        writer: Writer,
        on unit: Writer.Unit
    ) -> [GroupTicket<Writer.Unit>] {
        var toRun = group
        var index = 0
        var succeeded: [GroupTicket<Writer.Unit>] = []
        while index < toRun.count {
            if !writer.isInTransaction(unit) {
                do throws(APIError) {
                    try writer.begin(unit)
                } catch {
                    for member in succeeded + toRun[index...] { member.fail(error) }
                    return []
                }
            }
            let member = toRun[index]
            index += 1
            if let deadline = member.request.deadline, ContinuousClock.now >= deadline {
                member.fail(.timeout("the request's time limit was reached while it waited for the writer"))
                continue
            }
            let succeededAlone = member.run(unit)
            if writer.isInTransaction(unit) {
                if succeededAlone { succeeded.append(member) }
                continue
            }
            if succeededAlone {
                // Only COMMIT or ROLLBACK end a transaction, and the policy refuses both to requests.
                member.fail(.internal("the request ended the group's transaction"))
            }
            toRun = succeeded + toRun[index...]
            index = 0
            succeeded = []
        }
        return succeeded
    }
}
