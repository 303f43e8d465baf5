import Glibc
import HTTPServer
import SQLiteService
import ThreadStorage

/// The end of the last request log line formatted on this thread — ` method=… path=… protocol=… status=…
/// token=…` and the newline — given again when the next line's fields are the very same values.
///
/// A server answers the same endpoint for the same client over and over, so the end of its lines repeats; writing
/// its four strings anew (each checked for bytes that need quoting) was about half of the line's cost. "The very
/// same" is decided on the strings' representations (16 bytes each, compared with `memcmp`): equal representations
/// hold equal bytes (a short string keeps its bytes inline; a longer one is the same immutable storage, which the
/// remembered copy keeps alive). Strings equal in content but stored apart simply miss and are written out.
///
/// Per thread, as the `Date` cache of the HTTP server: no lock; each event loop and handler thread keeps its own.
final class RequestLineTail {
    private var method = ""
    private var path = ""
    private var protocolName = ""
    private var tokenName: String?
    private var status = -1
    /// The remembered end of the line; empty until one is remembered.
    private(set) var bytes: [UInt8] = []

    private static let tails = PerThread { RequestLineTail() }

    /// This thread's tail.
    static func current() -> RequestLineTail {
        tails.value
    }

    /// Whether `entry`'s method, path, protocol, status and token are the remembered ones.
    func matches(_ entry: RequestLogEntry) -> Bool {
        !bytes.isEmpty && status == entry.status && Self.identical(method, entry.method)
            && Self.identical(path, entry.path) && Self.identical(protocolName, entry.protocolName)
            && Self.identical(tokenName, entry.tokenName)
    }

    /// Remembers `tail` as the end of `entry`'s line.
    func remember(_ entry: RequestLogEntry, tail: UnsafeBufferPointer<UInt8>) {
        method = entry.method
        path = entry.path
        protocolName = entry.protocolName
        tokenName = entry.tokenName
        status = entry.status
        bytes = Array(tail)
    }

    /// Whether two values have the same representation (which implies the same bytes).
    private static func identical<Value>(_ left: Value, _ right: Value) -> Bool {
        withUnsafeBytes(of: left) { left in
            withUnsafeBytes(of: right) { right in
                memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }
}
