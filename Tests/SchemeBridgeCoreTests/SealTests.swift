import CLinux
import Glibc
import Testing

/// `clinux_seal`: a memfd is sealed for good, and a seal the kernel keeps refusing (EBUSY: a page
/// still referenced) is given up after a few tries with the kernel's errno, never waited on for good.
@Suite struct SealTests {
    @Test func aMemfdIsSealedAndAWritableMappingKeepsItFromBeingSealed() throws {
        let fd = clinux_memfd("seal-test")
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = Array(repeating: UInt8(7), count: 8192)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
        // Mapped shared and writable, it can be written through the mapping: the kernel refuses
        // F_SEAL_WRITE every time (EBUSY) — clinux_seal's tries end, and say why.
        let map = mmap(nil, bytes.count, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        try #require(map != MAP_FAILED)
        #expect(clinux_seal(fd) == -1 && errno == EBUSY)
        #expect(clinux_is_sealed(fd) == 0)
        munmap(map, bytes.count)
        #expect(clinux_seal(fd) == 0)
        #expect(clinux_is_sealed(fd) == 1)
        #expect(write(fd, bytes, 1) == -1 && errno == EPERM)
    }
}
