/// A statement prepared on the server (the STMT response to PREPARE); valid on its connection until finalized.
public struct DqliteStatement: Sendable, Hashable {
    public var database: UInt32
    public var id: UInt32
    /// The number of parameters the statement takes (`sqlite3_bind_parameter_count`).
    public var parameterCount: UInt64

    public init(database: UInt32, id: UInt32, parameterCount: UInt64) {
        self.database = database
        self.id = id
        self.parameterCount = parameterCount
    }
}
