import Glibc

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

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// `bytes` (valid UTF-8) as a String, the thread's last one when the bytes are the same.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= maxBytes, !bytes.isEmpty, let base = bytes.baseAddress else {
            return String(decoding: bytes, as: UTF8.self)
        }
        let entry: Entry
        if let pointer = pthread_getspecific(key) {
            entry = Unmanaged<Entry>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            entry = Entry()
            pthread_setspecific(key, Unmanaged.passRetained(entry).toOpaque())
        }
        let same =
            entry.bytes.count == bytes.count
            && entry.bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
        if same {
            return entry.text
        }
        let text = String(decoding: bytes, as: UTF8.self)
        entry.bytes = Array(bytes)
        entry.text = text
        return text
    }
}
