import Glibc
import HTTPServer
import ThreadStorage

/// The SQL text of the last simple body read on this thread, given again when the next body carries the same
/// bytes: a client sends the same few statements over and over, and making the String anew (UTF-8 validation and a
/// heap allocation past 15 bytes) cost more than the rest of reading the body.
///
/// Per thread, as ``HTTPDate``'s cache: no lock, and each event loop or handler thread keeps its own last text.
/// Texts up to ``maxBytes`` are kept; the comparison is byte for byte (`memcmp`), never String equality.
enum RecentSQLText {
    /// The longest text kept (a longer one is made every time).
    static let maxBytes = 4096

    /// One thread's last text. Only its own thread touches it.
    private final class Entry {
        var bytes: [UInt8] = []
        var text = ""
    }

    private static let entries = PerThread { Entry() }

    /// `bytes` (valid UTF-8) as a String, the thread's last one when the bytes are the same.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= maxBytes, !bytes.isEmpty, let base = bytes.baseAddress else {
            return String(decoding: bytes, as: UTF8.self)
        }
        let entry = entries.value
        let same =
            entry.bytes.count == bytes.count
            && entry.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
        if same {
            return entry.text
        }
        let text = String(decoding: bytes, as: UTF8.self)
        entry.bytes.removeAll(keepingCapacity: true)
        entry.bytes.append(contentsOf: bytes)
        entry.text = text
        return text
    }
}
