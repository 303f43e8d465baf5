internal import CSQLite

/// A run-time limit of a connection (`sqlite3_limit`).
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_limit_attached.html>
public enum Limit: Sendable, Hashable, CaseIterable {
    /// Maximum size of a string or BLOB, or of a row (`SQLITE_LIMIT_LENGTH`).
    case length
    case sqlLength
    case column
    case exprDepth
    case compoundSelect
    case vdbeOp
    case functionArg
    case attached
    case likePatternLength
    case variableNumber
    case triggerDepth
    case workerThreads

    var sqliteValue: Int32 {
        switch self {
        case .length: SQLITE_LIMIT_LENGTH
        case .sqlLength: SQLITE_LIMIT_SQL_LENGTH
        case .column: SQLITE_LIMIT_COLUMN
        case .exprDepth: SQLITE_LIMIT_EXPR_DEPTH
        case .compoundSelect: SQLITE_LIMIT_COMPOUND_SELECT
        case .vdbeOp: SQLITE_LIMIT_VDBE_OP
        case .functionArg: SQLITE_LIMIT_FUNCTION_ARG
        case .attached: SQLITE_LIMIT_ATTACHED
        case .likePatternLength: SQLITE_LIMIT_LIKE_PATTERN_LENGTH
        case .variableNumber: SQLITE_LIMIT_VARIABLE_NUMBER
        case .triggerDepth: SQLITE_LIMIT_TRIGGER_DEPTH
        case .workerThreads: SQLITE_LIMIT_WORKER_THREADS
        }
    }
}
