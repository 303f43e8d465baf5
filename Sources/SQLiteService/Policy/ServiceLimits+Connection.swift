import SQLiteEngine

extension ServiceLimits {
    /// The `sqlite3_limit` values a connection that runs clients' SQL gets: the ones
    /// ``SQLiteService/prepareConnection(_:role:limits:)`` applies to the pool's connections, as a table for
    /// connections set up through ``Database/applyConnectionOptions(_:)`` (the leader's, ``LeaderPolicy``).
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
