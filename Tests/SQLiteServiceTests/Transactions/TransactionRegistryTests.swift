import Foundation
import Synchronization
import Testing

@testable import SQLiteService

/// The registry alone, on handles that only record what is done to them.
@Suite struct TransactionRegistryTests {
    final class Handle: TransactionHandle {
        let isReadOnly: Bool
        let rolledBack = Atomic<Int>(0)
        init(readOnly: Bool = false) { isReadOnly = readOnly }
        var isOpen: Bool { rolledBack.load(ordering: .relaxed) == 0 }
        func perform<T>(
            until deadline: ContinuousClock.Instant,
            _ body: (any WriteSession) throws(APIError) -> T
        ) throws(APIError) -> T { throw .internal() }
        func commit(
            until deadline: ContinuousClock.Instant,
            _ beforeCommit: (any WriteSession) throws(APIError) -> WriteAnswer
        ) throws(APIError) -> WriteAnswer { throw .internal() }
        func rollback() { rolledBack.add(1, ordering: .relaxed) }
    }

    /// Checks that IDs are 32 hex digits (128 bits) and differ.
    @Test func ids_are128RandomBits() {
        let ids = Set((0..<1000).map { _ in TransactionRegistry.makeID() })
        #expect(ids.count == 1000)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    /// Checks the busy flag, the token scope, and that an expired ID is 404 "expired" for its token only and is
    /// forgotten after ten minutes.
    @Test func checkOut_busyScopeAndExpiredMemory() throws {
        let registry = TransactionRegistry()
        let handle = Handle()
        let id = registry.register(handle, token: "a", idleTimeout: .seconds(1), maxLifetime: .seconds(60))
        #expect(throws: APIError.self) { try registry.checkOut(id, token: "b") }
        _ = try registry.checkOut(id, token: "a")
        #expect((try? registry.checkOut(id, token: "a")) == nil)
        do {
            _ = try registry.checkOut(id, token: "a")
        } catch {
            #expect(error.code == "TRANSACTION_BUSY")
        }
        let later = ContinuousClock.now + .seconds(5)
        // In use: not expired under its request.
        #expect(registry.expire(now: later) == 0)
        registry.checkIn(id, now: .now)
        #expect(registry.expire(now: later) == 1)
        #expect(handle.rolledBack.load(ordering: .relaxed) == 1)
        do {
            _ = try registry.checkOut(id, token: "a", now: later)
        } catch {
            #expect(error.message.contains("expired"))
        }
        do {
            _ = try registry.checkOut(id, token: "b", now: later)
        } catch {
            #expect(!error.message.contains("expired"))
        }
        do {
            _ = try registry.checkOut(id, token: "a", now: later + .seconds(601))
        } catch {
            #expect(!error.message.contains("expired"))
        }
    }

    /// Checks the `read_only` count: reserved before the open, given back when the open fails or the transaction
    /// ends.
    @Test func readerReservations_areCounted() {
        let registry = TransactionRegistry()
        #expect(registry.reserveReader(limit: 1))
        #expect(!registry.reserveReader(limit: 1))
        registry.cancelReader()
        #expect(registry.reserveReader(limit: 1))
        let id = registry.register(
            Handle(readOnly: true),
            token: nil,
            idleTimeout: .seconds(9),
            maxLifetime: .seconds(9)
        )
        #expect(registry.counts.readOnly == 1)
        registry.finish(id)
        #expect(registry.counts == (0, 0))
        #expect(registry.reserveReader(limit: 1))
    }
}
