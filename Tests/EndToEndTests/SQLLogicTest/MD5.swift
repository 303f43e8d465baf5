#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MD5 message digest (RFC 1321), used only to compare sqllogictest result hashes.
///
/// sqllogictest prints large results as `N values hashing to <md5>`; MD5 is what the corpus uses, not a security
/// choice. Implemented here so the test target needs no crypto dependency.
struct MD5 {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    /// Per-round left-rotation amounts (RFC 1321 §3.4).
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// T[i] = floor(abs(sin(i + 1)) * 2^32) (RFC 1321 §3.4).
    private static let constants: [UInt32] = (0..<64).map { index in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(index + 1))) * 4_294_967_296).rounded(.down)))
    }

    init() {}

    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            pending.append(byte)
            totalBytes &+= 1
            if pending.count == 64 {
                processBlock(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    mutating func update(_ text: String) {
        update(text.utf8)
    }

    /// Finishes the digest and returns it as 32 lowercase hex digits.
    mutating func finalizeHex() -> String {
        let bitLength = totalBytes &* 8
        var padding: [UInt8] = [0x80]
        while (pending.count + padding.count) % 64 != 56 { padding.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let savedTotal = totalBytes
        update(padding)
        totalBytes = savedTotal
        var hex = ""
        for word in [state.0, state.1, state.2, state.3] {
            for shift in stride(from: 0, to: 32, by: 8) {
                let byte = UInt8(truncatingIfNeeded: word >> UInt32(shift))
                hex += (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return hex
    }

    /// The hex digest of `text`'s UTF-8 bytes.
    static func hex(_ text: String) -> String {
        var md5 = MD5()
        md5.update(text)
        return md5.finalizeHex()
    }

    private mutating func processBlock(_ block: [UInt8]) {
        var words = [UInt32](repeating: 0, count: 16)
        for index in 0..<16 {
            // Words are little-endian (RFC 1321 §2).
            words[index] =
                UInt32(block[index * 4]) | UInt32(block[index * 4 + 1]) << 8
                | UInt32(block[index * 4 + 2]) << 16 | UInt32(block[index * 4 + 3]) << 24
        }
        var (a, b, c, d) = state
        for round in 0..<64 {
            var f: UInt32
            let g: Int
            switch round {
            case 0..<16:
                f = (b & c) | (~b & d)
                g = round
            case 16..<32:
                f = (d & b) | (~d & c)
                g = (5 * round + 1) % 16
            case 32..<48:
                f = b ^ c ^ d
                g = (3 * round + 5) % 16
            default:
                f = c ^ (b | ~d)
                g = (7 * round) % 16
            }
            f = f &+ a &+ Self.constants[round] &+ words[g]
            a = d
            d = c
            c = b
            let shift = Self.shifts[round]
            b = b &+ ((f << shift) | (f >> (32 - shift)))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
