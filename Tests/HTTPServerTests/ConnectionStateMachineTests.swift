import Testing

@testable import HTTPServer

/// A connection's life without a socket: every transition of ``ConnectionStateMachine`` with the action it asks
/// for, and the transitions the connection can never make, which trap.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine

    static let allStates: [Machine.State] = [.http1Idle, .http1InFlight, .http2, .closing, .lingering, .closed]

    /// The state whose name is `name` (exit tests capture its name).
    static func state(named name: String) -> Machine.State {
        allStates.first { "\($0)" == name }!
    }

    /// A machine brought to `state` by legal transitions.
    static func machine(in state: Machine.State, pendingOutput: Int = 1) -> Machine {
        var machine = Machine()
        switch state {
        case .http1Idle:
            break
        case .http1InFlight:
            _ = machine.requestDispatched(keepAlive: true)
        case .http2:
            machine.prefaceReceived()
        case .closing:
            let action = machine.closeWhenFlushed(pendingOutput: pendingOutput)
            #expect(action == .none)
        case .lingering:
            let action = machine.closeWhenFlushed(pendingOutput: 0)
            #expect(action == .linger)
        case .closed:
            let action = machine.closeNow()
            #expect(action == .close(abortive: false))
        }
        #expect(machine.state == state)
        return machine
    }

    @Test func everyStateHasItsName() {
        for state in Self.allStates { #expect(Self.state(named: "\(state)") == state) }
    }

    @Test func startsReadingHTTP1WithNothingInFlight() {
        let machine = Machine()
        #expect(machine.state == .http1Idle)
        #expect(!machine.isRequestInFlight && !machine.isClosing && !machine.isLingering && !machine.isClosed)
        #expect(!machine.draining && !machine.peerClosedInput && !machine.abortive)
    }

    // MARK: - HTTP/1.1 requests, keep-alive and pipelining order

    @Test func requestsAreAnsweredOneAtATime() {
        var machine = Machine()
        var keepAlive = machine.requestDispatched(keepAlive: true)
        #expect(keepAlive)
        #expect(machine.state == .http1InFlight && machine.isRequestInFlight)
        machine.responseFinished()
        #expect(machine.state == .http1Idle)
        // The next pipelined request, once the first is answered.
        keepAlive = machine.requestDispatched(keepAlive: false)
        #expect(!keepAlive)
        #expect(machine.state == .http1InFlight)
    }

    @Test func drainingTurnsKeepAliveOff() {
        var machine = Machine()
        machine.beginDraining()
        #expect(machine.draining)
        #expect(machine.state == .http1Idle)
        let keepAlive = machine.requestDispatched(keepAlive: true)
        #expect(!keepAlive)
    }

    @Test func aResponseFinishedOnAClosedConnectionLeavesItClosed() {
        var machine = Self.machine(in: .http1InFlight)
        var action = machine.closeNow()
        #expect(action == .close(abortive: false))
        machine.responseFinished()
        #expect(machine.state == .closed)
        action = machine.responseFailed(abortive: true, pendingOutput: 0)
        #expect(action == .none)
        #expect(machine.state == .closed && !machine.abortive)
    }

    @Test func aFailedChunkedResponseClosesCleanlyOnceFlushed() {
        var machine = Self.machine(in: .http1InFlight)
        var action = machine.responseFailed(abortive: false, pendingOutput: 10)
        #expect(action == .none)
        #expect(machine.state == .closing && machine.isClosing && !machine.abortive)
        action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .linger)
        #expect(machine.state == .lingering)
    }

    @Test func aFailedCloseDelimitedResponseEndsWithAReset() {
        var machine = Self.machine(in: .http1InFlight)
        var action = machine.responseFailed(abortive: true, pendingOutput: 0)
        #expect(action == .close(abortive: true))
        #expect(machine.state == .closing && machine.abortive)
        action = machine.closeNow()
        #expect(action == .close(abortive: true))
        #expect(machine.state == .closed)
    }

    // MARK: - HTTP/2

    @Test func thePrefaceSwitchesToHTTP2() {
        var machine = Machine()
        machine.prefaceReceived()
        #expect(machine.state == .http2)
        #expect(!machine.isRequestInFlight && !machine.isClosing)
    }

    @Test func anUpgradeTurnsTheRequestInFlightIntoStreamOne() {
        var machine = Self.machine(in: .http1InFlight)
        machine.upgradedToHTTP2()
        #expect(machine.state == .http2 && !machine.isRequestInFlight)
    }

    @Test func http2DrainsAndCloses() {
        var machine = Self.machine(in: .http2)
        machine.beginDraining()
        #expect(machine.state == .http2 && machine.draining)
        var action = machine.closeWhenFlushed(pendingOutput: 5)
        #expect(action == .none)
        #expect(machine.state == .closing)
        action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .linger)
        #expect(machine.state == .lingering)
    }

    // MARK: - Closing, lingering, abort

    @Test(arguments: [Machine.State.http1Idle, .http2, .closing])
    func closeWhenFlushedWaitsForTheOutput(from state: Machine.State) {
        var machine = Self.machine(in: state)
        var action = machine.closeWhenFlushed(pendingOutput: 1)
        #expect(action == .none)
        #expect(machine.state == .closing)
        action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .linger)
        #expect(machine.state == .lingering && machine.isClosing && machine.isLingering)
    }

    @Test func aClientThatClosedItsSideIsNotLingeredFor() {
        var machine = Machine()
        var action = machine.inputEnded()
        #expect(action == .none)
        #expect(machine.peerClosedInput && machine.state == .http1Idle)
        action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .close(abortive: false))
        #expect(machine.state == .closing)
        action = machine.closeNow()
        #expect(action == .close(abortive: false))
    }

    @Test func lingeringEndsWhenTheClientCloses() {
        var machine = Self.machine(in: .lingering)
        var action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .none)
        #expect(machine.state == .lingering)
        action = machine.inputEnded()
        #expect(action == .close(abortive: false))
        action = machine.closeNow()
        #expect(action == .close(abortive: false))
        #expect(machine.state == .closed)
    }

    @Test(arguments: [Machine.State.http1Idle, .http1InFlight, .http2, .closing, .lingering])
    func closeNowClosesFromAnyState(from state: Machine.State) {
        var machine = Self.machine(in: state)
        var action = machine.closeNow()
        #expect(action == .close(abortive: false))
        #expect(machine.state == .closed && machine.isClosed && machine.isClosing)
        // Closing twice (a forced close after an error) does nothing more.
        action = machine.closeNow()
        #expect(action == .none)
        action = machine.closeWhenFlushed(pendingOutput: 0)
        #expect(action == .none)
        action = machine.inputEnded()
        #expect(action == .none)
        machine.beginDraining()
        #expect(machine.state == .closed)
    }

    @Test(arguments: [Machine.State.http1Idle, .http1InFlight, .http2, .closing, .lingering, .closed])
    func drainingAndTheClientsCloseChangeNoState(in state: Machine.State) {
        var machine = Self.machine(in: state)
        machine.beginDraining()
        #expect(machine.state == state && machine.draining)
        _ = machine.inputEnded()
        #expect(machine.state == state && machine.peerClosedInput)
    }

    // MARK: - Illegal transitions

    @Test(arguments: [Machine.State.http1InFlight, .http2, .closing, .lingering, .closed])
    func aRequestIsDispatchedOnlyWhenNoneIsInFlight(in state: Machine.State) async {
        let name = "\(state)"
        await #expect(processExitsWith: .failure) { [name = name as String] in
            var machine = ConnectionStateMachineTests.machine(in: ConnectionStateMachineTests.state(named: name))
            _ = machine.requestDispatched(keepAlive: true)
        }
    }

    @Test(arguments: [Machine.State.http1Idle, .http2, .closing, .lingering])
    func onlyAnInFlightResponseFinishes(in state: Machine.State) async {
        let name = "\(state)"
        await #expect(processExitsWith: .failure) { [name = name as String] in
            var machine = ConnectionStateMachineTests.machine(in: ConnectionStateMachineTests.state(named: name))
            machine.responseFinished()
        }
        await #expect(processExitsWith: .failure) { [name = name as String] in
            var machine = ConnectionStateMachineTests.machine(in: ConnectionStateMachineTests.state(named: name))
            _ = machine.responseFailed(abortive: false, pendingOutput: 0)
        }
    }

    @Test(arguments: [Machine.State.http1Idle, .http2, .closing, .lingering, .closed])
    func onlyAnInFlightRequestUpgrades(in state: Machine.State) async {
        let name = "\(state)"
        await #expect(processExitsWith: .failure) { [name = name as String] in
            var machine = ConnectionStateMachineTests.machine(in: ConnectionStateMachineTests.state(named: name))
            machine.upgradedToHTTP2()
        }
    }

    @Test(arguments: [Machine.State.http1InFlight, .http2, .closing, .lingering, .closed])
    func thePrefaceComesOnlyFirst(in state: Machine.State) async {
        let name = "\(state)"
        await #expect(processExitsWith: .failure) { [name = name as String] in
            var machine = ConnectionStateMachineTests.machine(in: ConnectionStateMachineTests.state(named: name))
            machine.prefaceReceived()
        }
    }

    @Test func aConnectionDoesNotCloseUnderARequestInFlight() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectionStateMachineTests.machine(in: .http1InFlight)
            _ = machine.closeWhenFlushed(pendingOutput: 0)
        }
    }
}
