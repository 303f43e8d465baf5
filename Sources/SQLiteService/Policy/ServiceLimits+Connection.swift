import SQLiteEngine

extension ServiceLimits {
    /// The `sqlite3_limit` values a connection that runs clients' SQL gets: applied by
    /// ``SQLiteService/prepareConnection(_:role:limits:)`` to the pool's connections and through
    /// ``Database/applyConnectionOptions(_:)`` to the cluster leader's (``LeaderPolicy``), so both get one list.
    var connectionLimits: [Limit: Int32] {
        [
            .attached: 0,
            .sqlLength: maxSQLLength,
            .length: maxValueLength,
            .exprDepth: maxExpressionDepth,
            .variableNumber: maxParameters,
            .triggerDepth: 100,
            .likePatternLength: maxLikePatternLength,
        ]
    }
}
