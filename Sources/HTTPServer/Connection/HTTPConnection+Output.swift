import Dispatch
import Logging

/// The connection's output, for both protocols: queued bytes sent as the socket takes them, under
/// ``HTTPLimits/maxPendingOutput``.
extension HTTPConnection {
    // MARK: - Output

    /// Queues `bytes` and sends what the socket takes.
    func enqueue(_ bytes: [UInt8]) {
        append(bytes)
        flush()
    }

    /// Queues `bytes` without sending yet.
    func append(_ bytes: [UInt8]) {
        guard !closed, !bytes.isEmpty else { return }
        if pendingOutput == 0 { lastWriteProgressAt = loop.now }
        output.append(contentsOf: bytes)
        maxObservedPendingOutput = max(maxObservedPendingOutput, pendingOutput)
    }

    func handleWritable() {
        flush()
        processInput()
    }

    /// Sends as much as the socket takes; the socket is watched for writability only while output is waiting.
    func flush() {
        guard !closed else { return }
        while outputOffset < output.count {
            let result: IOResult<Int>
            do {
                result = try output.withUnsafeBytes { raw in
                    try Socket.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                logger.debug("write failed, closing", metadata: ["error": "\(error)"])
                close()
                return
            }
            guard case .done(let count) = result else { break }
            outputOffset += count
            lastWriteProgressAt = loop.now
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
        } else if outputOffset >= 64 * 1024 {
            output.removeSubrange(0..<outputOffset)
            outputOffset = 0
        }
        let wanted = outputOffset < output.count
        if wanted != wantsWrite {
            wantsWrite = wanted
            updateInterest()
        }
        if pendingOutput <= limits.maxPendingOutput, let waiter = drainWaiter {
            drainWaiter = nil
            waiter.signal()
        }
        if pendingOutput == 0 && closing {
            closeWhenFlushed()
        }
    }
}
