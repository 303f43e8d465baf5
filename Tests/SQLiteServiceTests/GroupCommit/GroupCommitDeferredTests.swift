import Dispatch
import Foundation
import HTTPServer
import SQLiteEngine
import Synchronization
import Testing

@testable import SQLiteService

/// Writes taken on the event loop (``SQLiteService/handleDeferred(_:respond:)``): queued for the next group with no
/// thread waiting, answered by the group's leader only after its `COMMIT`.
@Suite struct GroupCommitDeferredTests {
    private static func post(_ path: String, _ json: String, method: String = "POST") -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPRequest(method: method, target: path, headers: headers, body: Array(json.utf8))
    }

    /// Collects the answers given to `respond`, by index.
    private final class Answers: Sendable {
        let storage = Mutex<[Int: HTTPResponse]>([:])
        var count: Int { storage.withLock { $0.count } }
        subscript(index: Int) -> HTTPResponse? { storage.withLock { $0[index] } }
    }

    @Test func deferredWrites_formOneGroup_andAreAnsweredAfterItsCommit() throws {
        let fixture = try ServiceFixture()
        #expect(fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(k TEXT)"}"#).status.code == 200)
        let (groupsBefore, requestsBefore) = try fixture.groupCommitCounts()
        let release = fixture.holdWriter()
        let answers = Answers()
        let requests = [
            Self.post("/update", #"{"sql": "INSERT INTO t VALUES ('a')"}"#),
            Self.post("/batch", #"{"statements": [{"sql": "INSERT INTO t VALUES ('b')"}]}"#),
            Self.post("/transaction", #"{"statements": [{"sql": "INSERT INTO t VALUES ('c')"}]}"#),
            Self.post("/tables/t/rows", #"{"rows": [{"k": "d"}]}"#),
            Self.post("/update", #"{"sql": "INSERT INTO nowhere VALUES (1)"}"#),
        ]
        for (index, request) in requests.enumerated() {
            let taken = fixture.service.handleDeferred(request) { response in
                answers.storage.withLock { $0[index] = response }
            }
            #expect(taken)
        }
        // Queued, not answered: nothing is acknowledged before its group commits.
        #expect(fixture.service.groupCommitter.queuedCount == requests.count)
        #expect(answers.count == 0)
        release()
        let deadline = ContinuousClock.now + .seconds(20)
        while answers.count < requests.count && ContinuousClock.now < deadline { usleep(1000) }
        for index in 0..<4 { #expect(answers[index]?.status.code == 200) }
        #expect(answers[4]?.status.code == 400)
        #expect(try errorObject(try #require(answers[4]))?["code"] == .string("SQLITE_ERROR"))
        #expect(try fixture.scalar("SELECT group_concat(k, '') FROM (SELECT k FROM t ORDER BY k)") == .string("abcd"))
        let (groups, grouped) = try fixture.groupCommitCounts()
        #expect(groups == groupsBefore + 1)
        #expect(grouped == requestsBefore + Double(requests.count))
    }

    /// Options changed while deferred writes wait (a reload) apply from the next group on, even though the queue
    /// that leads them has been leading since before the change.
    @Test func reloadedGroupLimits_applyToTheNextGroup() throws {
        let fixture = try ServiceFixture()
        #expect(fixture.send("POST", "/update", json: #"{"sql": "CREATE TABLE t(k TEXT)"}"#).status.code == 200)
        let (groupsBefore, _) = try fixture.groupCommitCounts()
        let release = fixture.holdWriter()
        let answers = Answers()
        func submit(_ index: Int) {
            let request = Self.post("/update", #"{"sql": "INSERT INTO t VALUES ('\#(index)')"}"#)
            #expect(
                fixture.service.handleDeferred(request) { response in answers.storage.withLock { $0[index] = response }
                }
            )
        }
        for index in 0..<3 { submit(index) }
        var options = fixture.service.options
        options.groupCommit.maxRequests = 1
        fixture.service.setOptions(options)
        submit(3)
        #expect(fixture.service.groupCommitter.queuedCount == 4)
        release()
        let deadline = ContinuousClock.now + .seconds(20)
        while answers.count < 4 && ContinuousClock.now < deadline { usleep(1000) }
        for index in 0..<4 { #expect(answers[index]?.status.code == 200) }
        #expect(try fixture.groupCommitCounts().groups == groupsBefore + 4)
    }

    /// A request that fails before it reaches the writer (broken JSON, a wrong method) is answered at once, before
    /// `handleDeferred` returns, and queues nothing.
    @Test func invalidWrites_areAnsweredAtOnce() throws {
        let fixture = try ServiceFixture()
        let answers = Answers()
        let requests = [Self.post("/update", #"{"sql": "#), Self.post("/batch", "{}", method: "PUT")]
        for (index, request) in requests.enumerated() {
            let taken = fixture.service.handleDeferred(request) { response in
                answers.storage.withLock { $0[index] = response }
            }
            #expect(taken)
            #expect(answers[index] != nil)
        }
        #expect(answers[0]?.status.code == 400)
        #expect(answers[1]?.status.code == 405)
        #expect(fixture.service.groupCommitter.queuedCount == 0)
    }

    /// Reads, bodies too large to decode on the loop and every write with group commit off go to `handle`.
    @Test func readsLargeBodiesAndGroupCommitOff_areNotTaken() throws {
        let fixture = try ServiceFixture()
        let unexpected: @Sendable (HTTPResponse) -> Void = { _ in Issue.record("answered") }
        #expect(!fixture.service.handleDeferred(Self.post("/query", #"{"sql": "SELECT 1"}"#), respond: unexpected))
        #expect(!fixture.service.handleDeferred(Self.post("/tables/t/rows", "", method: "GET"), respond: unexpected))
        let large = #"{"sql": "SELECT ?", "params": [""# + String(repeating: "x", count: 70_000) + #""]}"#
        #expect(!fixture.service.handleDeferred(Self.post("/update", large), respond: unexpected))
        var options = fixture.service.options
        options.groupCommit.isEnabled = false
        fixture.service.setOptions(options)
        #expect(!fixture.service.handleDeferred(Self.post("/update", #"{"sql": "SELECT 1"}"#), respond: unexpected))
    }
}
