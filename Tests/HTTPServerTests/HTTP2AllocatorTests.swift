import Testing

@testable import HTTPServer

/// The session allocator hands freed blocks of a size class out again, zeroes what `calloc` asks for, keeps the
/// contents when a block grows, and keeps at most ``HTTP2Allocator/cachedPerClass`` free blocks a class.
@Suite struct HTTP2AllocatorTests {
    @Test func aFreedBlockIsHandedOutAgainForItsClass() throws {
        let allocator = HTTP2Allocator()
        let block = try #require(allocator.allocate(100))
        allocator.free(block)
        #expect(allocator.cachedBlocks == 1)
        // 65...128 bytes: the same class.
        #expect(allocator.allocate(65) == block)
        #expect(allocator.cachedBlocks == 0)
        // Another class does not take it.
        allocator.free(block)
        let small = try #require(allocator.allocate(10))
        #expect(small != block)
        allocator.free(small)
        allocator.free(nil)
        #expect(allocator.cachedBlocks == 2)
    }

    @Test func largeBlocksAreNotKept() throws {
        let allocator = HTTP2Allocator()
        let large = try #require(allocator.allocate(4096))
        large.storeBytes(of: 7, toByteOffset: 4088, as: UInt64.self)
        allocator.free(large)
        #expect(allocator.cachedBlocks == 0)
    }

    @Test func theFreeListsAreBounded() throws {
        let allocator = HTTP2Allocator()
        let blocks = try (0..<(HTTP2Allocator.cachedPerClass + 8)).map { _ in try #require(allocator.allocate(200)) }
        #expect(Set(blocks).count == blocks.count)
        for block in blocks { allocator.free(block) }
        #expect(allocator.cachedBlocks == HTTP2Allocator.cachedPerClass)
    }

    @Test func anAllocatorKeepingNothingFreesEveryBlock() throws {
        let allocator = HTTP2Allocator(cachedPerClass: 0)
        let first = try #require(allocator.allocate(100))
        allocator.free(first)
        #expect(allocator.cachedBlocks == 0)
        let second = try #require(allocator.allocateZeroed(1, 100))
        #expect(UnsafeRawBufferPointer(start: second, count: 100).allSatisfy { $0 == 0 })
        allocator.free(second)
        #expect(allocator.cachedBlocks == 0)
    }

    @Test func callocZeroesAReusedBlock() throws {
        let allocator = HTTP2Allocator()
        let block = try #require(allocator.allocate(64))
        block.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 64)
        allocator.free(block)
        let zeroed = try #require(allocator.allocateZeroed(4, 16))
        #expect(zeroed == block)
        #expect(UnsafeRawBufferPointer(start: zeroed, count: 64).allSatisfy { $0 == 0 })
        #expect(allocator.allocateZeroed(Int.max, 2) == nil)
        allocator.free(zeroed)
    }

    @Test func reallocKeepsTheContents() throws {
        let allocator = HTTP2Allocator()
        let block = try #require(allocator.reallocate(nil, 40))
        for index in 0..<40 { block.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
        // Within the block's capacity (64): the same block.
        #expect(allocator.reallocate(block, 60) == block)
        let grown = try #require(allocator.reallocate(block, 1000))
        #expect(grown != block)
        #expect((0..<40).allSatisfy { grown.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        // The old block went back to its free list.
        #expect(allocator.cachedBlocks == 1)
        allocator.free(grown)
    }
}
