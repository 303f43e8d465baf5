import Foundation
import SQLiteEngine

extension RecordValueKind {
    /// The value `text` (a key part or a filter value from a URL) stands for, or nil when it does not convert.
    func value(fromText text: String) -> DatabaseValue? {
        switch self {
        case .text, .untyped:
            return .text(text)
        case .integer:
            return Self.integer(text).map(DatabaseValue.integer)
        case .number:
            if let integer = Self.integer(text) { return .integer(integer) }
            guard Self.isDecimalNumber(text), let double = Double(text), double.isFinite else { return nil }
            return .real(double)
        case .blob:
            // Standard or URL-safe alphabet, padding optional.
            var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while normalized.utf8.count % 4 != 0 { normalized += "=" }
            return Base64.decode(normalized).map { .blob(Data($0)) }
        }
    }

    /// An optional sign and decimal digits that fit in 64 bits (`007` is 7).
    private static func integer(_ text: String) -> Int64? {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value: Int64 = 0
        for byte in digits.utf8 {
            let digit = Int64(byte - 0x30)
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflowed || overflowedAgain { return nil }
            value = next
        }
        return value
    }

    /// A decimal number as JSON writes one (no `inf`, `nan`, hex or white space, which `Double(_:)` would take).
    private static func isDecimalNumber(_ text: String) -> Bool {
        text.utf8.first.map { (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") } == true
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                    || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            }
    }
}
