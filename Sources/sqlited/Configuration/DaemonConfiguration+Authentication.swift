import HTTPServer
import SQLiteService

extension DaemonConfiguration {
    /// Reads `auth.tokens`: a list of `NAME:ROLE:SHA256HEX` entries (the hash as printed by `sqlited hash-token`),
    /// comma-separated in `SQLITED_AUTH_TOKENS`.
    ///
    /// `check-config --print` and the startup log show the entries as `NAME:ROLE` only.
    ///
    /// - Returns: The store, or `nil` when no token is configured (authentication off).
    /// - Throws: ``ConfigurationError`` naming the key, the entry's position and the source for a malformed entry,
    ///   an unknown role, or a duplicate name or hash. Messages never repeat an entry: a plain token pasted where
    ///   a hash belongs must not end up in the journal. A hash is shown by its first 8 digits at most.
    static func loadTokens(from values: LayeredConfiguration) throws(ConfigurationError) -> TokenStore? {
        let key = "auth.tokens"
        var list = try values.stringArray(key, default: [], secret: true)
        // `SQLITED_AUTH_TOKENS=` (set but empty) means no token, not one empty entry.
        if list == [""] { list = [] }
        let source = values.source(of: key)
        func failure(_ message: String) -> ConfigurationError {
            ConfigurationError(key: key, source: source, message: message)
        }

        var entries: [TokenStore.Entry] = []
        var positions: [String: Int] = [:]
        var hashPositions: [[UInt8]: Int] = [:]
        for (offset, text) in list.enumerated() {
            let position = offset + 1
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else {
                throw failure("entry #\(position) must be NAME:ROLE:SHA256HEX (the hash from sqlited hash-token)")
            }
            let (name, roleText, hashText) = (parts[0], parts[1], parts[2])
            var entry: TokenStore.Entry
            do {
                // The role is checked after the name, so that a message only quotes a name known to be one.
                entry = try TokenStore.Entry(name: name, sha256Hex: hashText, role: .read)
            } catch .invalidName {
                throw failure("entry #\(position): the name must be 1 to 64 letters, digits, '-', '_' or '.'")
            } catch {
                throw failure(
                    "entry #\(position) (\"\(name)\"): the hash must be 64 hexadecimal digits "
                        + "(the output of sqlited hash-token, not the token)"
                )
            }
            guard let role = TokenRole(rawValue: roleText) else {
                throw failure(
                    "entry #\(position) (\"\(name)\"): unknown role, use "
                        + TokenRole.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            entry.role = role
            if let first = positions[name] {
                throw failure("entries #\(first) and #\(position) are both named \"\(name)\"")
            }
            if let first = hashPositions[entry.hash] {
                throw failure(
                    "entries #\(first) and #\(position) have the same hash (\(hashText.prefix(8).lowercased())…): "
                        + "one token cannot have two names or roles"
                )
            }
            positions[name] = position
            hashPositions[entry.hash] = position
            entries.append(entry)
        }
        values.describe(key, as: "[" + entries.map { "\($0.name):\($0.role.rawValue)" }.joined(separator: ", ") + "]")
        guard !entries.isEmpty else { return nil }
        do {
            return try TokenStore(entries: entries)
        } catch {
            // Names and hashes were checked above, with positions; this keeps the store's own rules authoritative.
            throw failure("\(error)")
        }
    }

    /// ``checkUnauthenticatedExposure(remoteListeners:source:)`` for the configured listen addresses, as
    /// `check-config` sees them (at start, sockets passed by systemd replace them and are checked instead).
    func checkConfiguredListeners(_ values: LayeredConfiguration) throws(ConfigurationError) {
        _ = try checkUnauthenticatedExposure(
            remoteListeners: listenAddresses.compactMap(ListenerExposure.remoteDescription(of:)),
            source: values.source(of: "listen.host")
        )
    }

    /// Refuses to serve without authentication on an address other machines can reach, unless
    /// `auth.allow_unauthenticated_remote` says so.
    ///
    /// - Parameters:
    ///   - remoteListeners: The listeners that are not loopback-only (see ``ListenerExposure``), as text.
    ///   - source: Where those listeners came from (the `listen.host` value's source, or systemd's `LISTEN_FDS`).
    /// - Returns: Whether the daemon serves remote clients without authentication (allowed): the caller warns.
    /// - Throws: ``ConfigurationError`` naming both keys when it is not allowed.
    func checkUnauthenticatedExposure(
        remoteListeners: [String],
        source: ConfigurationSource
    ) throws(ConfigurationError) -> Bool {
        guard tokens == nil, !remoteListeners.isEmpty else { return false }
        guard allowUnauthenticatedRemote else {
            throw ConfigurationError(
                key: nil,
                source: source,
                message: "refusing to listen on \(remoteListeners.joined(separator: ", ")) (not loopback) with no "
                    + "auth.tokens configured: add tokens, listen on 127.0.0.1, or set "
                    + "auth.allow_unauthenticated_remote to true to let anyone who can reach it read and write"
            )
        }
        return true
    }
}
