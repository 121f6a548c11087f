import Foundation
import LinuxSystem
import Testing
@testable import SchemeBridgeCore

/// The descriptor calls Core makes through one place each: `FileDescriptor.open(bytes:)` (a
/// path as the kernel names it, for the document portal's `O_PATH` open) and Core's one
/// `readlink` (``FileSystem/linkTarget(_:capacity:)``).
@Suite struct DescriptorCurrencyTests {
    @Test func aPathGivenAsBytesOpensThatFile() throws {
        let tree = XDGTree()
        // A name that is not UTF-8 (as a file name may be): the bytes are the name.
        let name: [UInt8] = Array("doc-".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        let path = Array(tree.root.utf8) + [UInt8(ascii: "/")] + name
        let made = try FileDescriptor.open(bytes: path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        try made.writeAll(Array("contents".utf8))
        let opened = try FileDescriptor.open(bytes: path, O_RDONLY)
        #expect(try opened.status().st_ino == made.status().st_ino)
        let real = Array((FileSystem.realPath(tree.root) ?? tree.root).utf8) + [UInt8(ascii: "/")] + name
        #expect(opened.kernelPath() == real, "the very file the bytes name")
        #expect(throws: Errno(ENOENT)) { _ = try FileDescriptor.open(bytes: Array(tree.root.utf8) + Array("/nothing".utf8), O_RDONLY) }
        #expect(throws: Errno(ENOENT), "a NUL in a path names nothing (never the part before it)") {
            _ = try FileDescriptor.open(bytes: path + [0] + Array("x".utf8), O_RDONLY)
        }
    }

    @Test func aLinksTargetIsReadOnce() {
        let tree = XDGTree()
        let file = tree.root + "/file", link = tree.root + "/link", long = tree.root + "/long"
        tree.write(file, "x")
        #expect(symlink("file", link) == 0)
        #expect(symlink(String(repeating: "a", count: 300), long) == 0)
        #expect(FileSystem.linkTarget(link) == "file")
        #expect(FileSystem.linkTarget(file) == nil, "no link")
        #expect(FileSystem.linkTarget(tree.root + "/missing") == nil)
        #expect(FileSystem.linkTarget(long, capacity: 127) == String(repeating: "a", count: 127), "at most capacity bytes")
        #expect(FileSystem.linkTarget(long) == String(repeating: "a", count: 300))
    }
}
