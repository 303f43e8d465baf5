import DqliteClient
import Testing

@testable import DqliteCluster

/// The conflicts a join and an operator's `add` refuse before anything is sent to the leader.
@Suite struct MembershipCheckTests {
    private let nodes = [
        DqliteNodeInfo(id: 1, address: "127.0.0.1:9001", role: .voter),
        DqliteNodeInfo(id: 2, address: "127.0.0.1:9002", role: .spare),
    ]

    @Test func newNodeAtAFreeAddress_isNotAMemberYet() throws {
        #expect(try MembershipCheck.existingMember(id: 3, address: "127.0.0.1:9003", in: nodes) == nil)
    }

    @Test func memberAtItsOwnAddress_isReturned() throws {
        let member = try MembershipCheck.existingMember(id: 2, address: "127.0.0.1:9002", in: nodes)
        #expect(member?.id == 2 && member?.role == .spare)
    }

    @Test func memberAtAnotherAddress_isRefused() {
        let error = clusterError { try MembershipCheck.existingMember(id: 2, address: "127.0.0.1:9999", in: nodes) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message == "node 2 is a member at 127.0.0.1:9002, not at 127.0.0.1:9999")
    }

    @Test func addressOfAnotherNode_isRefused() {
        let error = clusterError { try MembershipCheck.existingMember(id: 3, address: "127.0.0.1:9001", in: nodes) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message == "the address 127.0.0.1:9001 belongs to node 1")
    }
}
