import Foundation
import Glibc
import Testing

@testable import HTTPServer

/// `HTTPDate` formats an instant as IMF-fixdate (RFC 9110 §5.6.7) and gives the current second's bytes from a
/// per-thread cache that is never a second behind.
@Suite struct HTTPDateTests {
    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (946_684_799, "Fri, 31 Dec 1999 23:59:59 GMT"),
        (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"),
        (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func format_isIMFFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(seconds) == expected)
    }

    /// Every day of the week and month of the year, with two-digit day, hour, minute and second.
    @Test func format_namesEveryDayAndMonth() {
        let day = 86_400
        // 1970-01-04 was a Sunday.
        let days = (0..<7).map { String(HTTPDate.format((3 + $0) * day).prefix(3)) }
        #expect(days == ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])
        // The 15th of each month of 1970, at 01:02:03.
        let firstOfMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        let months = firstOfMonth.map { HTTPDate.format(($0 + 14) * day + 3723) }
        #expect(
            months.map { $0.dropFirst(5).prefix(6) } == [
                "15 Jan", "15 Feb", "15 Mar", "15 Apr", "15 May", "15 Jun", "15 Jul", "15 Aug", "15 Sep", "15 Oct",
                "15 Nov", "15 Dec",
            ]
        )
        #expect(months.allSatisfy { $0.hasSuffix(" 1970 01:02:03 GMT") && $0.utf8.count == 29 })
    }

    private static func current() -> String {
        HTTPDate.withCurrentBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The cached value is the current second's, whenever it is asked for.
    @Test func currentBytes_areTheCurrentSecond() {
        for _ in 0..<3 {
            let before = time(nil)
            let value = Self.current()
            let after = time(nil)
            #expect((before...after).map { HTTPDate.format($0) }.contains(value))
        }
    }

    /// Past a second boundary the cache gives the new second, not the one it formatted before.
    @Test func currentBytes_followTheClockPastASecond() {
        let first = Self.current()
        let start = time(nil)
        while time(nil) == start { usleep(10_000) }
        let before = time(nil)
        let second = Self.current()
        let after = time(nil)
        // `before` is past `start`: a value cached in an earlier second is not it.
        #expect(before > start)
        #expect(second != first)
        #expect((before...after).map { HTTPDate.format($0) }.contains(second))
    }

    /// Each thread has its own cache, and each gives the current second.
    @Test func currentBytes_areRightOnAnyThread() async {
        let values = await withTaskGroup(of: (Int, String, Int).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread.detachNewThread {
                            let before = time(nil)
                            let value = Self.current()
                            continuation.resume(returning: (before, value, time(nil)))
                        }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.count == 4)
        for (before, value, after) in values {
            #expect((before...after).map { HTTPDate.format($0) }.contains(value))
        }
    }
}
