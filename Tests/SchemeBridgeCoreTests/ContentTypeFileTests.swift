import Glibc
import Testing
@testable import SchemeBridgeCore

/// Detection from descriptors and paths, with the installed database: non-regular files are
/// typed from `fstat` alone and never read (a FIFO without a writer, `/dev/zero`), content is
/// read with `pread` (the caller's offset stays), unreadable descriptors are errors only when
/// content was needed.
@Suite struct ContentTypeFileTests {
    let types = ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"])
    let tree = XDGTree(dataDirCount: 0)
    /// `O_PATH` (Linux; Glibc's module does not export it without _GNU_SOURCE).
    static let pathOnly: Int32 = 0o10_000_000
    static let png = ContentTypeSamples.magic.first { $0.name == "png" }!.bytes

    func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = tree.root + "/" + name
        tree.writeBytes(path, bytes)
        return path
    }

    func withDescriptor<T>(_ path: String, _ flags: Int32, _ body: (Int32) throws -> T) rethrows -> T {
        let fd = open(path, flags | O_CLOEXEC)
        #expect(fd >= 0, "cannot open \(path)")
        defer { close(fd) }
        return try body(fd)
    }

    @Test func nonRegularDescriptorsAreTypedWithoutReading() throws {
        #expect(types.cacheCount == 1, "no /usr/share/mime/mime.cache: install shared-mime-info")
        let dir = try withDescriptor(tree.root, O_RDONLY | O_DIRECTORY) { try types.contentType(forFileDescriptor: $0, name: "x.png") }
        #expect(dir == "inode/directory")
        let fifo = tree.root + "/pipe.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        let pipe = try withDescriptor(fifo, O_RDONLY | O_NONBLOCK) { try types.contentType(forFileDescriptor: $0, name: nil) }
        #expect(pipe == "inode/fifo")
        let zero = try withDescriptor("/dev/zero", O_RDONLY) { try types.contentType(forFileDescriptor: $0, name: "zero") }
        #expect(zero == "inode/chardevice")
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        #expect(try types.contentType(forFileDescriptor: s, name: "x.pdf") == "inode/socket")
        symlink(tree.root + "/nowhere", tree.root + "/link")
        let link = try withDescriptor(tree.root + "/link", ContentTypeFileTests.pathOnly | O_NOFOLLOW) { try types.contentType(forFileDescriptor: $0, name: "link") }
        #expect(link == "inode/symlink")
    }

    @Test func regularDescriptors() throws {
        let empty = file("empty.png", [])
        #expect(try withDescriptor(empty, O_RDONLY) { try types.contentType(forFileDescriptor: $0, name: "empty.png") } == "text/plain")
        let image = file("notes", ContentTypeFileTests.png)
        let (type, offset) = try withDescriptor(image, O_RDONLY) { fd in
            lseek(fd, 5, SEEK_SET)
            return (try types.contentType(forFileDescriptor: fd, name: "notes"), lseek(fd, 0, SEEK_CUR))
        }
        #expect(type == "image/png")
        #expect(offset == 5, "the caller's offset moved")
        #expect(try withDescriptor(image, O_RDONLY) { try types.contentType(forFileDescriptor: $0, name: nil) } == "image/png")
        let text = file("picture.png", ContentTypeSamples.textLines)
        #expect(try withDescriptor(text, O_RDONLY) { try types.contentType(forFileDescriptor: $0, name: "picture.png") } == "image/png")
        // O_PATH: fstat works, reading does not. A certain name needs no reading.
        #expect(try withDescriptor(image, ContentTypeFileTests.pathOnly) { try types.contentType(forFileDescriptor: $0, name: "report.pdf") } == "application/pdf")
        #expect(throws: ContentTypeError(code: EBADF, operation: "read")) {
            try withDescriptor(image, ContentTypeFileTests.pathOnly) { try types.contentType(forFileDescriptor: $0, name: "notes") }
        }
        #expect(throws: ContentTypeError(code: EBADF, operation: "read")) {
            try withDescriptor(image, O_WRONLY) { try types.contentType(forFileDescriptor: $0, name: nil) }
        }
        #expect(throws: ContentTypeError(code: EBADF, operation: "fstat")) { try types.contentType(forFileDescriptor: 987_654, name: nil) }
        #expect(ContentTypeError(code: EBADF, operation: "read").description == "cannot read the file: Bad file descriptor")
    }

    @Test func pathsAsGioTypesThem() {
        symlink(tree.root + "/nowhere", tree.root + "/dangling")
        #expect(types.contentType(ofFileAt: tree.root + "/dangling") == "inode/symlink")
        #expect(types.contentType(ofFileAt: tree.root + "/missing") == nil)
        let image = file("image-without-name", ContentTypeFileTests.png)
        symlink(image, tree.root + "/followed")
        #expect(types.contentType(ofFileAt: tree.root + "/followed") == "image/png")
        #expect(types.contentType(ofFileAt: "/dev/null") == "inode/chardevice")
        #expect(types.contentType(ofFileAt: tree.root) == "inode/directory")
        #expect(ContentTypeDatabase.inodeType(mode: S_IFREG | 0o644) == nil)
        #expect(ContentTypeDatabase.inodeType(mode: S_IFBLK) == "inode/blockdevice")
    }

    @Test func installedDatabase() {
        #expect(types.contentType(forName: "report.pdf") == "application/pdf")
        #expect(types.contentType(forName: "Backup.TAR.GZ") == "application/x-compressed-tar")
        #expect(types.contentType(forName: "Makefile") == "text/x-makefile")
        #expect(types.contentTypes(forName: "song.ogg").count > 1)
        #expect(types.canonicalType("application/x-pdf") == "application/pdf")
        #expect(types.parentChain(of: "image/svg+xml") == ["image/svg+xml", "application/xml", "text/plain", "application/octet-stream"])
        #expect(types.parentChain(of: "application/x-shellscript")
            == ["application/x-shellscript", "application/x-executable", "text/plain", "application/octet-stream"])
        #expect(types.isSubclass("text/x-python3", of: "text/plain"))
        #expect(types.contentType(forData: ContentTypeSamples.magic.first { $0.name == "desktop-entry" }!.bytes) == "application/x-desktop")
        #expect(types.contentType(forData: ContentTypeSamples.magic.first { $0.name == "desktop-entry" }!.bytes, name: "notes") == "text/plain")
    }
}
