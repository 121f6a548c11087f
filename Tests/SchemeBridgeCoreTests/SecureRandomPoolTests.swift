import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The service's CSPRNG buffer (``SecureRandomPool``): the kernel is asked once per
/// ``SecureRandomPool/capacity`` bytes, and every byte it gave is handed out exactly once, in
/// order — so tokens made from it never repeat and are as unguessable as `getrandom`'s bytes.
@Suite struct SecureRandomPoolTests {
    /// A stand-in kernel that fills with a counter (each byte it ever gave is distinct by
    /// position), and counts its fills.
    final class CountingKernel: Sendable {
        let state = Mutex<(fills: Int, counter: UInt64)>((0, 0))
        var fills: Int { state.withLock { $0.fills } }
        func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            state.withLock { s in
                s.fills += 1
                for i in stride(from: 0, to: buffer.count, by: 8) {
                    s.counter += 1
                    withUnsafeBytes(of: s.counter.littleEndian) { word in
                        for j in 0..<min(8, buffer.count - i) { buffer[i + j] = word[j] }
                    }
                }
            }
        }
    }

    @Test func theKernelIsAskedOncePerCapacityAndEachByteIsHandedOutOnceInOrder() {
        let kernel = CountingKernel()
        let pool = SecureRandomPool(capacity: 4096) { kernel.fill($0) }
        #expect(kernel.fills == 0)  // nothing read before the first request
        var words: [UInt64] = []
        for n in 1...128 {  // 128 tokens of 32 bytes: one 4 KiB read
            let bytes = pool.bytes(32)
            #expect(bytes.count == 32)
            words += stride(from: 0, to: 32, by: 8).map { i in bytes[i..<(i + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            #expect(kernel.fills == 1, "token \(n)")
        }
        #expect(words == Array(1...512))  // the kernel's bytes, in order, none skipped, none twice
        _ = pool.bytes(32)
        #expect(kernel.fills == 2)  // spent: read anew
    }

    @Test func aRequestThatDoesNotFitWhatIsLeftReadsAnewAndNothingIsGivenTwice() {
        let kernel = CountingKernel()
        let pool = SecureRandomPool(capacity: 64) { kernel.fill($0) }
        let a = pool.bytes(40), b = pool.bytes(40)  // 24 left after a: b comes from a new read
        #expect(kernel.fills == 2)
        #expect(a != b && Set(a.chunked8).isDisjoint(with: Set(b.chunked8)))
        let big = pool.bytes(1000)  // larger than the pool: straight from the kernel
        #expect(big.count == 1000 && kernel.fills == 3)
        #expect(pool.bytes(0).isEmpty && kernel.fills == 3)
    }

    @Test func tokensFromTheKernelNeverRepeatAcrossThreads() async {
        let pool = SecureRandomPool()
        let tokens = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 { group.addTask { (0..<1000).map { _ in pool.bytes(32) } } }
            return await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(tokens.count == 8000 && Set(tokens).count == 8000)
        #expect(tokens.allSatisfy { $0.contains { $0 != 0 } })
        let made = (0..<1000).map { _ in ReplyToken.make() }
        #expect(Set(made).count == 1000 && made.allSatisfy { $0.utf8.count == 64 && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) } })
    }
}

private extension Array where Element == UInt8 {
    /// The 8-byte words of the stand-in kernel's counter the bytes hold (whole words only).
    var chunked8: [[UInt8]] { stride(from: 0, to: count - 7, by: 8).map { Array(self[$0..<($0 + 8)]) } }
}
