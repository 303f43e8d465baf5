import Crypto
import Foundation
import SQLiteEngine

/// Makes and checks the opaque cursors of keyset paging.
///
/// A cursor names one row by its sort-key values, for one table and one `_order`: the payload
/// `[table, order, [values…]]` (values tagged with their type so that each comes back exactly: integers as decimal
/// text, reals by their bit pattern, text, blobs in base64, NULL), base64url-encoded, then `.` and the first 16
/// bytes of its HMAC-SHA256. On the local storage the key is random, made when the service starts, so a cursor is
/// valid until the server restarts (then: 400, start again from the first page); on a cluster every node signs with
/// the key kept in the replicated database (``ClusterStorage/cursorCodec()``), so a cursor made by one node is
/// valid on all. Any change to a cursor fails the HMAC check: 400 `INVALID_REQUEST`, never an error from SQLite.
struct RecordCursorCodec: Sendable {
    /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
    private let keyBytes: [UInt8]

    /// A codec with a new random key.
    init() {
        keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// A codec signing with `keyBytes` (at least 32 bytes).
    init(keyBytes: [UInt8]) {
        precondition(keyBytes.count >= 32, "a cursor key has at least 256 bits")
        self.keyBytes = keyBytes
    }

    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    func encode(table: String, order: String, values: [DatabaseValue]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        writer.writeString(table)
        writer.writeString(order)
        writer.beginArray()
        for value in values {
            switch value {
            case .null:
                writer.writeNull()
            case .integer(let integer):
                writer.beginArray()
                writer.writeString("i")
                writer.writeString(String(integer))
                writer.endArray()
            case .real(let real):
                writer.beginArray()
                writer.writeString("r")
                writer.writeString(String(real.bitPattern, radix: 16))
                writer.endArray()
            case .text(let text):
                writer.beginArray()
                writer.writeString("t")
                writer.writeString(text)
                writer.endArray()
            case .blob(let data):
                writer.beginArray()
                writer.writeString("b")
                // A string, as `value(_:)` reads it back (`writeBase64` would write the API's `{"base64": …}`).
                var encoded: [UInt8] = []
                data.withUnsafeBytes { Base64.encode($0, into: &encoded) }
                writer.writeString(String(decoding: encoded, as: UTF8.self))
                writer.endArray()
            }
        }
        writer.endArray()
        writer.endArray()
        let payload = writer.bytes
        let mac = Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)).prefix(16)
        return Self.base64URL(payload) + "." + Self.base64URL(Array(mac))
    }

    /// The values of `cursor`, checked to have been made by this server for `table` and `order`, with `count`
    /// values; 400 `INVALID_REQUEST` otherwise.
    func decode(_ cursor: String, table: String, order: String, count: Int) throws(APIError) -> [DatabaseValue] {
        let invalid = APIError.invalidRequest(
            "the cursor is not valid (altered, truncated, or from a server that has since restarted)"
        )
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Self.fromBase64URL(parts[0]), let mac = Self.fromBase64URL(parts[1]),
            mac.count == 16
        else { throw invalid }
        let expected = Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)).prefix(16)
        // Compared in constant time.
        guard zip(expected, mac).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else { throw invalid }
        guard case .array(let members)? = try? JSONParser().parse(payload), members.count == 3,
            case .string(let cursorTable) = members[0], case .string(let cursorOrder) = members[1],
            case .array(let encoded) = members[2]
        else { throw invalid }
        guard cursorTable == table else {
            throw .invalidRequest("the cursor was made for another table")
        }
        guard cursorOrder == order, encoded.count == count else {
            throw .invalidRequest("the cursor was made for another _order")
        }
        var values: [DatabaseValue] = []
        for value in encoded {
            guard let decoded = Self.value(value) else { throw invalid }
            values.append(decoded)
        }
        return values
    }

    private static func value(_ json: JSONValue) -> DatabaseValue? {
        if json == .null { return .null }
        guard case .array(let pair) = json, pair.count == 2, case .string(let tag) = pair[0],
            case .string(let text) = pair[1]
        else { return nil }
        switch tag {
        case "i": return Int64(text).map(DatabaseValue.integer)
        case "r": return UInt64(text, radix: 16).map { .real(Double(bitPattern: $0)) }
        case "t": return .text(text)
        case "b": return Base64.decode(text).map { .blob(Data($0)) }
        default: return nil
        }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        var encoded: [UInt8] = []
        bytes.withUnsafeBytes { Base64.encode($0, into: &encoded) }
        return String(decoding: encoded, as: UTF8.self)
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func fromBase64URL(_ text: Substring) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Base64.decode(standard)
    }
}
