import Glibc

/// The record of this node's membership in its data directory: a file holding the node id, written once the node
/// is a voter (bootstrapped or joined), deleted when it is removed from the cluster.
///
/// dqlite's own files cannot tell a member from a fresh node: raft creates its metadata and preallocates open
/// segments at every start, added or not.
enum MembershipFile {
    static func path(in directory: String) -> String {
        directory + "/" + ClusterMember.membershipFileName
    }

    /// The recorded node id, or `nil` when there is no record.
    static func read(in directory: String) throws(ClusterError) -> UInt64? {
        let path = path(in: directory)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        guard count >= 0 else { throw failure("read", path) }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let id = UInt64(words[0]) else {
            throw ClusterError(kind: .invalidConfiguration, message: "\(path) does not hold a node id")
        }
        return id
    }

    /// Records `id`: written to a temporary file, flushed, then renamed over the record.
    static func write(_ id: UInt64, in directory: String) throws(ClusterError) {
        let path = path(in: directory)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", temporary) }
        let bytes = Array("\(id)\n".utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else { throw failure("write", temporary) }
        guard rename(temporary, path) == 0 else { throw failure("rename", path) }
    }

    static func delete(in directory: String) throws(ClusterError) {
        let path = path(in: directory)
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("unlink", path) }
    }

    private static func failure(_ call: String, _ path: String) -> ClusterError {
        let code = errno
        return ClusterError(
            kind: .node,
            code: UInt64(code),
            message: "\(call) \(path): \(String(cString: strerror(code)))"
        )
    }
}
