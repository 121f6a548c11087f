import Glibc
import LinuxSystem
import Testing

/// LinuxSystem's names looked up in an open directory (DirectoryRelative.swift): what is opened
/// and read is the directory's entry, owned and close-on-exec, and a failure is its `errno`.
@Suite struct DirectoryRelativeTests {
    @Test func aNameIsOpenedInTheDirectoryNotTheWorkingOne() throws {
        let tree = XDGTree()
        tree.write(tree.root + "/note.txt", "in the tree")
        let directory = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
        let file = try directory.open(relative: "note.txt", O_RDONLY)
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = try bytes.withUnsafeMutableBytes { b throws(Errno) in try file.read(into: b) }
        #expect(String(decoding: bytes[..<n], as: UTF8.self) == "in the tree")
        #expect(throws: Errno(ENOENT)) { _ = try directory.open(relative: "missing.txt", O_RDONLY) }
    }

    @Test func aLinkIsReadInTheDirectory() throws {
        let tree = XDGTree()
        #expect(symlink("/some/where é", tree.root + "/link") == 0)
        let directory = try FileDescriptor.open(tree.root, O_RDONLY | O_DIRECTORY)
        let read = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer throws(Errno) -> String in
            let n = try directory.readLink(relative: "link", into: buffer)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<n]), as: UTF8.self)
        }
        #expect(read == "/some/where é")
        let cut = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 5) { buffer throws(Errno) -> Int in
            try directory.readLink(relative: "link", into: buffer)
        }
        #expect(cut == 5, "a link longer than the buffer fills it")
        tree.write(tree.root + "/plain", "x")
        #expect(throws: Errno(EINVAL)) {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer throws(Errno) in _ = try directory.readLink(relative: "plain", into: buffer) }
        }
    }
}
