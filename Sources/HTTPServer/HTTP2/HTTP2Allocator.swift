import CNGHTTP2
import Glibc

/// The memory of one libnghttp2 session (`nghttp2_mem`). A session allocates the same few small blocks for every
/// request — the stream, its outbound frames, the copy of the response's fields, the buffers of literal header
/// fields — and frees them when the stream closes; kept here on a free list per size class, they are handed out
/// again without a `malloc` and a `free` each. Bounded: at most ``cachedPerClass`` blocks a class are kept, the
/// rest is freed, and a block larger than the largest class comes from `malloc` and goes back to `free`. The fuzz
/// target keeps none, so that AddressSanitizer sees every block freed.
///
/// Not thread-safe: its session's event loop uses it. It must outlive the session and every buffer the session
/// handed out that is still held (an `nghttp2_rcbuf` kept past a callback frees itself through this allocator).
final class HTTP2Allocator {
    /// Every block starts with a header: its class (-1: a block of its own size) and its capacity.
    private static let headerSize = 16
    private static let classCount = 4
    static let cachedPerClass = 32

    /// The free lists, in raw memory that libnghttp2's callbacks reach without reference counting: per class, the
    /// first free block (each free block holds the address of the next), then per class the number of free blocks,
    /// then the most a class keeps.
    private let state: UnsafeMutableRawPointer

    /// An allocator keeping at most `cachedPerClass` free blocks a class (0: none, every block is freed).
    init(cachedPerClass: Int = HTTP2Allocator.cachedPerClass) {
        state = .allocate(byteCount: (2 * Self.classCount + 1) * 8, alignment: 8)
        state.initializeMemory(as: Int.self, repeating: 0, count: 2 * Self.classCount)
        state.storeBytes(of: max(cachedPerClass, 0), toByteOffset: 2 * Self.classCount * 8, as: Int.self)
    }

    deinit {
        for index in 0..<Self.classCount {
            var block = Self.firstFree(state, index)
            while let current = block {
                block = current.load(as: UnsafeMutableRawPointer?.self)
                Glibc.free(current - Self.headerSize)
            }
        }
        state.deallocate()
    }

    /// The allocator as libnghttp2 takes it; valid while this object is.
    var nghttp2Memory: nghttp2_mem {
        nghttp2_mem(
            mem_user_data: state,
            malloc: { size, state in HTTP2Allocator.allocate(size, state!) },
            free: { block, state in HTTP2Allocator.free(block, state!) },
            calloc: { count, size, state in HTTP2Allocator.allocateZeroed(count, size, state!) },
            realloc: { block, size, state in HTTP2Allocator.reallocate(block, size, state!) }
        )
    }

    private static func firstFree(_ state: UnsafeMutableRawPointer, _ index: Int) -> UnsafeMutableRawPointer? {
        state.load(fromByteOffset: index * 8, as: UnsafeMutableRawPointer?.self)
    }

    private static func setFirstFree(_ state: UnsafeMutableRawPointer, _ index: Int, _ block: UnsafeMutableRawPointer?)
    {
        state.storeBytes(of: block, toByteOffset: index * 8, as: UnsafeMutableRawPointer?.self)
    }

    private static func count(_ state: UnsafeMutableRawPointer, _ index: Int) -> Int {
        state.load(fromByteOffset: (classCount + index) * 8, as: Int.self)
    }

    private static func setCount(_ state: UnsafeMutableRawPointer, _ index: Int, _ count: Int) {
        state.storeBytes(of: count, toByteOffset: (classCount + index) * 8, as: Int.self)
    }

    /// The class whose blocks hold `size` bytes (64, 128, 256, 512); nil past the largest.
    private static func sizeClass(_ size: Int) -> Int? {
        switch size {
        case ...64: 0
        case ...128: 1
        case ...256: 2
        case ...512: 3
        default: nil
        }
    }

    private static func allocate(_ size: Int, _ state: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        guard let index = sizeClass(size) else { return allocateBlock(class: -1, capacity: size) }
        if let block = firstFree(state, index) {
            setFirstFree(state, index, block.load(as: UnsafeMutableRawPointer?.self))
            setCount(state, index, count(state, index) - 1)
            return block
        }
        return allocateBlock(class: index, capacity: 64 << index)
    }

    private static func allocateBlock(class index: Int, capacity: Int) -> UnsafeMutableRawPointer? {
        guard capacity <= Int.max - headerSize, let raw = malloc(headerSize + capacity) else { return nil }
        raw.storeBytes(of: index, as: Int.self)
        raw.storeBytes(of: capacity, toByteOffset: 8, as: Int.self)
        return raw + headerSize
    }

    private static func free(_ block: UnsafeMutableRawPointer?, _ state: UnsafeMutableRawPointer) {
        guard let block else { return }
        let index = (block - headerSize).load(as: Int.self)
        guard index >= 0, count(state, index) < state.load(fromByteOffset: 2 * classCount * 8, as: Int.self) else {
            Glibc.free(block - headerSize)
            return
        }
        block.storeBytes(of: firstFree(state, index), as: UnsafeMutableRawPointer?.self)
        setFirstFree(state, index, block)
        setCount(state, index, count(state, index) + 1)
    }

    private static func allocateZeroed(
        _ count: Int,
        _ size: Int,
        _ state: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer? {
        let (total, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, let block = allocate(total, state) else { return nil }
        memset(block, 0, total)
        return block
    }

    private static func reallocate(
        _ block: UnsafeMutableRawPointer?,
        _ size: Int,
        _ state: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size, state) }
        let capacity = (block - headerSize).load(fromByteOffset: 8, as: Int.self)
        if size <= capacity { return block }
        guard let grown = allocate(size, state) else { return nil }
        grown.copyMemory(from: block, byteCount: capacity)
        free(block, state)
        return grown
    }

    // For tests: the allocator's own calls, as libnghttp2 makes them.

    func allocate(_ size: Int) -> UnsafeMutableRawPointer? { Self.allocate(size, state) }
    func free(_ block: UnsafeMutableRawPointer?) { Self.free(block, state) }
    func allocateZeroed(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
        Self.allocateZeroed(count, size, state)
    }
    func reallocate(_ block: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        Self.reallocate(block, size, state)
    }

    /// Blocks on the free lists.
    var cachedBlocks: Int { (0..<Self.classCount).reduce(0) { $0 + Self.count(state, $1) } }
}
