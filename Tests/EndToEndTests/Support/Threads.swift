import Dispatch
import Foundation

/// Runs `body` on a thread of its own, inside `group` when one is given.
///
/// Blocking work in a test (a semaphore wait, a held connection, a busy loop) must not run on Dispatch's global
/// queue: on a 2-core machine it has as few threads as cores, shared with swift-testing's cooperative pool, and
/// tests that block them starve each other until none can finish (seen: the whole suite hung).
func onNewThread(group: DispatchGroup? = nil, _ body: @escaping @Sendable () -> Void) {
    group?.enter()
    Thread.detachNewThread {
        body()
        group?.leave()
    }
}
