extension GroupCommitter {
    /// Runs `body` in the next group on `writer` and returns its value once the group's `COMMIT` is over (an fsync
    /// locally, a Raft entry on a majority on the cluster), or throws the request's error: the one waiting
    /// submission of both storages' writes (``SQLiteService/onWriterInGroup(metrics:deadline:bytes:isOneTransaction:options:_:)``,
    /// ``ClusterStorage/runInGroup(_:options:metrics:logger:)``). The calling thread may lead the group.
    func perform<T>(
        _ request: GroupRequest,
        in context: GroupContext<Writer>,
        _ body: (Writer.Unit) throws(APIError) -> T
    ) throws(APIError) -> T {
        let outcome = GroupOutcome<T>()
        withoutActuallyEscaping(body) { body in
            let ticket = Self.ticket(request, outcome: outcome, body)
            submit(ticket, in: context)
            ticket.finish()
        }
        return try outcome.result.get()
    }

    /// ``perform(_:in:_:)`` without a thread waiting: `body` runs in the next group and `completion` gets its value
    /// (or error) once the group's `COMMIT` is over — called by the thread that led the group. The one deferred
    /// submission of both storages' writes (``SQLiteService/onWriterInGroupDeferred(_:metrics:options:completion:)``,
    /// ``ClusterStorage/runInGroupDeferred(_:options:metrics:logger:completion:)``).
    func performDeferred<T>(
        _ request: GroupRequest,
        in context: GroupContext<Writer>,
        _ body: @escaping (Writer.Unit) throws(APIError) -> T,
        completion: @escaping (Result<T, APIError>) -> Void
    ) {
        let outcome = GroupOutcome<T>()
        let ticket = Self.ticket(request, outcome: outcome, body, onComplete: { completion(outcome.result) })
        submitDeferred(ticket, in: context)
    }

    /// The ticket of a request whose `body` keeps its value or error in `outcome` (a failure without a run too);
    /// deferred when it has `onComplete`.
    private static func ticket<T>(
        _ request: GroupRequest,
        outcome: GroupOutcome<T>,
        _ body: @escaping (Writer.Unit) throws(APIError) -> T,
        onComplete: (() -> Void)? = nil
    ) -> GroupTicket<Writer.Unit> {
        GroupTicket<Writer.Unit>(
            request,
            run: { unit in
                do throws(APIError) {
                    outcome.value = .success(try body(unit))
                    return true
                } catch {
                    outcome.value = .failure(error)
                    return false
                }
            },
            fail: { error in outcome.value = .failure(error) },
            onComplete: onComplete
        )
    }
}

/// A request's outcome, kept until its group is over. Touched only by the group's leader, or by the request's own
/// thread once its group woke it (see ``GroupTicket``).
private final class GroupOutcome<T> {
    var value: Result<T, APIError>?

    /// The outcome, or an internal error when the request was neither run nor failed.
    var result: Result<T, APIError> {
        value ?? .failure(.internal("the write request was not run"))
    }
}
