public import DqliteClient

/// One statement that reads, with its values: an item of a pipelined call
/// (``ClusterClient/query(pipelined:deadline:)``), kept prepared on the leader connection that runs it.
public struct ClusterRead: Sendable, Hashable {
    /// One statement (PREPARE keeps the first of several and drops the rest).
    public var sql: String
    public var parameters: [DqliteValue]

    public init(_ sql: String, parameters: [DqliteValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
