import Foundation
import SQLiteEngine

/// Reads the conversions of an SQL `printf` format the way SQLite does, to know each one's width and precision
/// before SQLite formats anything (see ``FunctionGuard``).
///
/// A conversion is `%`, flags (`-+ #!0,`), a width (digits or `*`, taken from the next argument), a precision
/// (`.` then digits or `*`), length modifiers (`l`, `ll`) and a type letter. `%%` and `%n` take no argument; every
/// other type takes one; an unknown type ends the format, as in SQLite.
///
/// Related SQLite documentation: <https://www.sqlite.org/printf.html>
enum PrintfFormat {
    /// One conversion: its type letter, width (negative means left-justified) and precision (-1 when absent).
    struct Conversion: Equatable {
        var type: Character
        var width: Int64
        var precision: Int64
    }

    static let knownTypes: Set<Character> = Set("dsgzqQwcoxXieEfGpTSrn%")

    /// The conversions of `format`, with `*` widths and precisions taken from `arguments` in order.
    static func conversions(in format: String, arguments: ArraySlice<DatabaseValue>) -> [Conversion] {
        var result: [Conversion] = []
        var nextArgument = arguments.startIndex
        func takeInteger() -> Int64 {
            guard nextArgument < arguments.endIndex else { return 0 }
            defer { nextArgument += 1 }
            return estimatedInteger(arguments[nextArgument])
        }
        let characters = Array(format)
        var index = 0
        while index < characters.count {
            guard characters[index] == "%" else {
                index += 1
                continue
            }
            index += 1
            while index < characters.count, "-+ #!0,".contains(characters[index]) { index += 1 }
            var width: Int64 = 0
            if index < characters.count, characters[index] == "*" {
                width = takeInteger()
                index += 1
            } else {
                width = readDigits(characters, &index)
            }
            var precision: Int64 = -1
            if index < characters.count, characters[index] == "." {
                index += 1
                if index < characters.count, characters[index] == "*" {
                    precision = takeInteger()
                    // SQLite takes the magnitude of a negative `*` precision.
                    if precision < 0 { precision = precision == .min ? .max : -precision }
                    index += 1
                } else {
                    precision = readDigits(characters, &index)
                }
            }
            while index < characters.count, characters[index] == "l" { index += 1 }
            guard index < characters.count, knownTypes.contains(characters[index]) else { break }
            let type = characters[index]
            index += 1
            if type != "%" && type != "n" {
                result.append(Conversion(type: type, width: width, precision: precision))
                nextArgument += 1
            }
        }
        return result
    }

    /// Decimal digits at `index`, saturating instead of overflowing.
    private static func readDigits(_ characters: [Character], _ index: inout Int) -> Int64 {
        var value: Int64 = 0
        while index < characters.count, let digit = characters[index].wholeNumberValue, characters[index].isASCII {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
            value = overflow1 || overflow2 ? .max : sum
            index += 1
        }
        return value
    }

    /// The integer SQLite would read from `value` for a `*`, or a larger one: for text, the larger of its leading
    /// integer and its numeric value, so that `'3e9'` is not mistaken for 3.
    static func estimatedInteger(_ value: DatabaseValue) -> Int64 {
        switch value {
        case .null: return 0
        case .integer(let integer): return integer
        case .real(let real): return clamped(real)
        case .text(let text): return estimatedInteger(ofText: text)
        case .blob(let data): return estimatedInteger(ofText: String(decoding: data, as: UTF8.self))
        }
    }

    private static func estimatedInteger(ofText text: String) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var characters = Array(trimmed)
        var index = 0
        var negative = false
        if index < characters.count, characters[index] == "-" || characters[index] == "+" {
            negative = characters[index] == "-"
            index += 1
        }
        characters = Array(characters[index...])
        index = 0
        let leading = readDigits(characters, &index)
        let fromDigits = negative ? -leading : leading
        let fromDouble = Double(trimmed).map(clamped) ?? 0
        return fromDigits.magnitude >= fromDouble.magnitude ? fromDigits : fromDouble
    }

    private static func clamped(_ real: Double) -> Int64 {
        if real.isNaN { return 0 }
        if real >= 9.2e18 { return .max }
        if real <= -9.2e18 { return .min + 1 }
        return Int64(real)
    }
}
