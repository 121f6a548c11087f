import Glibc
import Synchronization
import Testing
@testable import LinuxSystem

/// A thread's slice (``ThreadSlice``): asked of the kernel for the calling thread alone, its nice
/// value kept, the kernel's default back with `.zero`.
@Suite struct ThreadSliceTests {
    @Test func aThreadAsksForAShortSliceAndKeepsItsNiceValue() throws {
        let seen = Mutex<(requested: Int32, slice: Duration?, nice: Int32, other: Duration?, reset: Duration?, longest: Duration?)?>(nil)
        let outside = ThreadSlice.current()
        let started = OSThread.start(name: "slice-test") {
            // Linux: a thread's own id is the last component of /proc/thread-self; who 0 is this thread alone.
            var buffer = [CChar](repeating: 0, count: 64)
            let n = readlink("/proc/thread-self", &buffer, 63)
            let link = n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            let tid = id_t(link.split(separator: "/").last.flatMap { UInt32($0) } ?? 0)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
            let requested = ThreadSlice.request(.microseconds(100))
            let slice = ThreadSlice.current()
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            let other = ThreadSlice.current(thread: Int32(tid))
            ThreadSlice.request(.seconds(Int64.max))  // kept within the kernel's range, no overflow
            let longest = ThreadSlice.current()
            ThreadSlice.request(.zero)
            seen.withLock { $0 = (requested, slice, nice, other, ThreadSlice.current(), longest) }
        }
        guard let thread = started else { Issue.record("no thread"); return }
        thread.join()
        let s = try #require(seen.withLock { $0 })
        #expect(s.requested == 0 && s.slice == .microseconds(100), "the kernel holds the slice asked for: \(s)")
        #expect(s.other == .microseconds(100), "read by its thread id too")
        #expect(s.nice == 5, "its nice value stays")
        #expect(s.reset != nil && s.reset != .microseconds(100), "`.zero`: the kernel's default again (\(String(describing: s.reset)))")
        #expect(ThreadSlice.current() == outside, "the calling thread alone")
        #expect(s.longest == .milliseconds(100), "a length beyond the kernel's range is kept within it, without overflow")
    }
}
