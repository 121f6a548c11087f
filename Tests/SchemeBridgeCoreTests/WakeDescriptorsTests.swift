import Glibc
import LinuxSystem
import Testing

/// LinuxSystem's owned wake-up descriptors (WakeDescriptors.swift): what each gives, and that a
/// thread owning a descriptor closes it when its body returns.
@Suite struct WakeDescriptorsTests {
    /// Reads once from a non-blocking descriptor: the bytes, nil at the end of a pipe, [] when
    /// nothing is there yet.
    static func readOnce(_ fd: borrowing FileDescriptor) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { read(fd.rawValue, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer[..<n]) : n == 0 ? nil : []
    }

    @Test func aThreadThatOwnsADescriptorClosesItWhenItsBodyReturns() async throws {
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd, writeEnd = pipe.writeEnd
        let thread = OSThread.start(name: "sb-test-owner", owning: writeEnd) { fd in try? fd.writeAll([7]) }
        #expect(thread != nil)
        thread?.join()
        // The byte, then the end of the pipe: its only write end was closed with the thread's body —
        // but a child another test of this process is spawning right then holds a copy of every
        // descriptor until its `exec` closes it (O_CLOEXEC; seen beside two CPU hogs: nothing yet,
        // not the end). Waited for, as the flock below.
        #expect(Self.readOnce(readEnd) == [7])
        #expect(await waitUntil { Self.readOnce(readEnd) == nil } != nil, "the end of the pipe once the thread's body returned")
    }

    @Test func aPipeIsNonBlockingAndCloseOnExecAtBothEnds() throws {
        let pipe = try FileDescriptor.pipe()
        for fd in [pipe.readEnd.rawValue, pipe.writeEnd.rawValue] {
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0 && fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
        #expect(Self.readOnce(pipe.readEnd) == [], "nothing there: no wait")
    }

    @Test func anEventCounterCountsTheSignals() throws {
        let counter = try FileDescriptor.eventCounter()
        #expect(fcntl(counter.rawValue, F_GETFL) & O_NONBLOCK != 0 && fcntl(counter.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        var value: UInt64 = 0
        #expect(read(counter.rawValue, &value, 8) < 0 && errno == EAGAIN, "not signalled: no wait")
        counter.signalEvent()
        counter.signalEvent()
        #expect(read(counter.rawValue, &value, 8) == 8 && value == 2)
        let blocking = try FileDescriptor.eventCounter(blocking: true)
        #expect(fcntl(blocking.rawValue, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test func anExclusiveLockHoldsUntilItsDescriptorCloses() async throws {
        let tree = XDGTree()
        do {
            let holder = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
            try holder.lockExclusively()
            let other = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
            #expect(flock(other.rawValue, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK, "held by the first descriptor")
        }
        // Released when it closed — but a flock belongs to the open file, and a child another test
        // of this process is spawning right then holds a copy of every descriptor until its `exec`
        // closes it (O_CLOEXEC): beside CPU hogs that lasted seconds once (flock → -1). Waited for.
        let later = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
        #expect(await waitUntil { flock(later.rawValue, LOCK_EX | LOCK_NB) == 0 } != nil, "released once closed")
    }

    @Test func anInotifyInstanceReportsAChange() throws {
        let tree = XDGTree()
        let instance = try FileDescriptor.inotifyInstance()
        #expect(fcntl(instance.rawValue, F_GETFL) & O_NONBLOCK != 0 && fcntl(instance.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(inotify_add_watch(instance.rawValue, tree.root, UInt32(IN_CREATE)) >= 0)
        tree.write(tree.root + "/new", "x")
        var p = pollfd(fd: instance.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 30_000) == 1, "the event is there (it was queued before the poll)")
    }
}
