public import Foundation

extension Date: DatabaseValueConvertible {
    /// A date is stored as REAL seconds since 1970-01-01 00:00:00 UTC.
    ///
    /// Use ``databaseText`` to store the `yyyy-MM-dd HH:mm:ss.SSS` UTC text form instead, which SQLite's date and
    /// time functions understand.
    public var databaseValue: DatabaseValue {
        .real(timeIntervalSince1970)
    }

    /// Reads a number as seconds since 1970, or text in the form `yyyy-MM-dd HH:mm[:ss[.SSS]]` (a `T` may separate
    /// date and time), taken as UTC.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_datefunc.html>
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .integer(let seconds):
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .real(let seconds):
            return Date(timeIntervalSince1970: seconds)
        case .text(let text):
            return DatabaseDateFormat.parse(text)
        case .null, .blob:
            return nil
        }
    }

    /// The date as TEXT `yyyy-MM-dd HH:mm:ss.SSS` in UTC, for example `2024-02-29 13:05:09.250`.
    public var databaseText: DatabaseValue {
        .text(DatabaseDateFormat.format(self))
    }
}

/// Formats and parses SQLite's canonical date text without `DateFormatter` (which is costly and locale-dependent).
enum DatabaseDateFormat {
    static func format(_ date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, msOfDay) = totalMilliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = civilFromDays(days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
            + ".\(pad(millisecond, 3))"
    }

    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + digits] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var milliseconds: Int64 = 0
        if index < bytes.count {
            guard expect(32) || expect(84) else { return nil }
            guard let hour = number(2), expect(58), let minute = number(2), hour < 24, minute < 60 else { return nil }
            milliseconds += (hour * 3600 + minute * 60) * 1000
            if expect(58) {
                guard let second = number(2), second < 60 else { return nil }
                milliseconds += second * 1000
                if expect(46) {
                    let start = index
                    var fraction: Double = 0
                    var scale: Double = 0.1
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                        fraction += Double(bytes[index] - 48) * scale
                        scale /= 10
                        index += 1
                    }
                    guard index > start else { return nil }
                    milliseconds += Int64((fraction * 1000).rounded())
                }
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400_000 + milliseconds) / 1000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    // Proleptic Gregorian calendar conversions (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let quotient = self / divisor
        let remainder = self % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
