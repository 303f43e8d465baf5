import Foundation
import Synchronization
import Testing

@testable import SQLiteEngine

/// `AutoExtension`: a handler sees every connection the process opens as a borrowed `Database`, may install things
/// on it, and makes the open fail by throwing; the borrowed object never closes the connection.
///
/// The handler acts only on files named `autoext-…` (it runs for every connection of this test process).
@Suite struct AutoExtensionTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused by the test handler" }
    }

    /// What the handler saw: the VFS names, and what closing and reopening the borrowed object did.
    static let seen = Mutex<[String: String]>([:])

    static let registration: Void = {
        try! AutoExtension.add { db in
            let name = URL(fileURLWithPath: db.path).lastPathComponent
            guard name.hasPrefix("autoext-") else { return }
            if name.hasPrefix("autoext-fail") { throw Refused() }
            var configuration = Configuration()
            configuration.limits = [.sqlLength: 1000]
            try db.applyConnectionOptions(configuration)
            try db.createFunction("autoext_marker", argumentCount: 0) { _ in 42 }
            let vfs = db.vfsName ?? "none"
            try db.close()
            let reopened = (try? db.open()) != nil
            seen.withLock { $0[name] = "\(vfs) closed:\(!db.isOpen) reopened:\(reopened)" }
        }
    }()

    @Test func handler_installsOnTheConnection_andNeverClosesIt() throws {
        Self.registration
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("autoext-limited.sqlite"))
        #expect(try db.query(sql: "SELECT autoext_marker()").next()?.value(at: 0) == .integer(42))
        #expect(db.limit(.sqlLength) == 1000)
        #expect(db.vfsName == "unix")
        #expect(Self.seen.withLock { $0["autoext-limited.sqlite"] } == "unix closed:true reopened:false")
        try db.execute(sql: "CREATE TABLE t(x)")

        let other = try Database(path: directory.path("other.sqlite"))
        #expect(other.limit(.sqlLength) == 1_000_000_000)
        let missing = databaseError { _ = try other.query(sql: "SELECT autoext_marker()").next() }
        #expect(missing?.message.contains("no such function") == true)
    }

    @Test func throwingHandler_failsTheOpen() throws {
        Self.registration
        let directory = try TemporaryDirectory()
        let error = databaseError { _ = try Database(path: directory.path("autoext-fail.sqlite")) }
        #expect(error?.message.contains("refused by the test handler") == true)
    }
}
