import Glibc
import Posix
import Testing

@Suite struct FreeMemoryTests {
    /// Space freed inside the heap (not at its top) is given back: 32 MB in 64 kB blocks, every one freed
    /// but the last, which keeps the space from being the top of the heap.
    @Test func spaceFreedInsideTheHeapIsGivenBack() {
        let blocks = (0..<512).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(64 << 10)!
            memset(block, 1, 64 << 10)
            return block
        }
        for block in blocks.dropLast() { free(block) }
        defer { free(blocks.last) }
        #expect(FreeMemory.releaseUnused())
    }

    /// A daemon's environment gets the allocator's tunables, unless it sets its own.
    @Test func daemonsGetTheTunablesUnlessTheEnvironmentSetsItsOwn() {
        #expect(FreeMemory.daemonEnvironment(["HOME=/h"]) == ["HOME=/h", "GLIBC_TUNABLES=glibc.malloc.tcache_count=0"])
        #expect(FreeMemory.daemonEnvironment([]) == ["GLIBC_TUNABLES=glibc.malloc.tcache_count=0"])
        #expect(FreeMemory.daemonEnvironment(["GLIBC_TUNABLES=glibc.malloc.mxfast=0", "A=1"]) == ["GLIBC_TUNABLES=glibc.malloc.mxfast=0", "A=1"])
        #expect(FreeMemory.daemonEnvironment(["GLIBC_TUNABLES="]) == ["GLIBC_TUNABLES="], "set, even empty, is the user's")
        #expect(FreeMemory.daemonEnvironment(["XGLIBC_TUNABLES=1"]).last == "GLIBC_TUNABLES=glibc.malloc.tcache_count=0")
    }
}
