import Foundation
import Glibc
import LinuxSystem
import Testing
@testable import SchemeBridgeCore

/// Where a share naming a device looks at its file (``DeviceFileLook``): on the calling thread
/// only for a file on a local file system reached through local mounts alone, with the same
/// checks, name and facts as the look on a descriptor thread and its type from its name.
@Suite struct DeviceFileLookTests {
    static let table = """
        22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
        23 22 0:21 / /proc rw,nosuid - proc proc rw
        24 22 0:22 / /run/user/1000 rw shared:5 - tmpfs tmpfs rw,size=100k
        25 22 0:40 / /home/u/remote rw - fuse.sshfs u@host: rw
        26 25 8:2 / /home/u/remote/inner rw - ext4 /dev/sda2 rw
        27 22 0:41 / /mnt/my\\040disk rw - xfs /dev/sdb1 rw
        28 22 0:42 / /srv/nfs rw - nfs4 host:/ rw
        garbage line
        """

    @Test func theMountTableIsReadAsTheKernelWritesIt() {
        let mounts = DeviceFileLook.mounts(Array(Self.table.utf8))
        #expect(mounts.count == 7, "a line it cannot read is left out")
        #expect(mounts.first == DeviceFileLook.Mount(id: 22, mountPoint: "/", type: "ext4"))
        #expect(mounts.contains(DeviceFileLook.Mount(id: 27, mountPoint: "/mnt/my disk", type: "xfs")), "octal escapes decoded")
        #expect(mounts.contains(DeviceFileLook.Mount(id: 25, mountPoint: "/home/u/remote", type: "fuse.sshfs")))
        #expect(DeviceFileLook.mountID(fdinfo: Array("pos:\t0\nflags:\t0100000\nmnt_id:\t24\nino:\t3\n".utf8)) == 24)
        #expect(DeviceFileLook.mountID(fdinfo: Array("pos:\t0\n".utf8)) == nil)
    }

    @Test func theTableKeptIsTheKernels() throws {
        let table = MountTable()
        let now = DeviceFileLook.mounts(try SmallFile.read("/proc/self/mountinfo", limit: 1 << 22, sizeKnown: false).bytes)
        #expect(table.mounts() == now && !now.isEmpty)
        #expect(table.mounts() == now, "unchanged: read again only when the kernel says so")
    }

    @Test func onlyLocalMountsAllTheWayDown() {
        let mounts = DeviceFileLook.mounts(Array(Self.table.utf8))
        func local(_ id: Int, _ path: String) -> Bool { DeviceFileLook.isLocal(mountID: id, path: path, mounts: mounts) }
        #expect(local(22, "/home/u/photo.png"))
        #expect(local(24, "/run/user/1000/notes.txt"))
        #expect(local(27, "/mnt/my disk/film.mkv"))
        #expect(!local(25, "/home/u/remote/a.txt"), "FUSE: its server may never answer")
        #expect(!local(26, "/home/u/remote/inner/a.txt"), "a local disk reached through a FUSE mount point")
        #expect(!local(28, "/srv/nfs/a.txt"), "a network file system")
        #expect(!local(23, "/proc/1/environ"))
        #expect(!local(99, "/home/u/a.txt"), "a mount not in the table (another namespace, gone)")
        #expect(!local(22, "/home/u/../u/a.txt") && !local(22, "relative.txt"))
        #expect(!DeviceFileLook.isLocal(mountID: 1, path: "/a", mounts: [DeviceFileLook.Mount(id: 1, mountPoint: "/", type: "overlay")]))
    }

    /// Paths and mount points are compared by bytes, as the kernel names them: a name starting
    /// with a combining mark is still within a FUSE mount, and below an outbox (by characters, the
    /// `/` before it was no separator and the file passed for one on the local disk).
    @Test func pathsAreWithinMountsByTheirBytes() {
        let mounts = DeviceFileLook.mounts(Array(Self.table.utf8))
        func local(_ id: Int, _ path: String, _ table: [DeviceFileLook.Mount]? = nil) -> Bool { DeviceFileLook.isLocal(mountID: id, path: path, mounts: table ?? mounts) }
        #expect(!local(22, "/home/u/remote/\u{301}a.txt"), "within the FUSE mount")
        #expect(!local(22, "/home/u/remote"), "the FUSE mount point itself")
        #expect(local(22, "/home/u/remoteness/a.txt") && local(22, "/home/u/\u{301}a.txt"), "by whole components")
        #expect(!local(22, "/home/u//a.txt") && !local(22, "/home/u/./a.txt") && !local(22, "/home/u/a.txt/.."))
        #expect(local(22, "/home/u/..a/.b/a..."), "names with dots are names")
        let rooted = [DeviceFileLook.Mount(id: 1, mountPoint: "/", type: "ext4"), DeviceFileLook.Mount(id: 2, mountPoint: "/srv//", type: "nfs")]
        #expect(!local(1, "/srv/a", rooted) && local(1, "/srvx/a", rooted), "a mount point's trailing slashes do not count")
        #expect(!local(1, "/a", rooted + [DeviceFileLook.Mount(id: 3, mountPoint: "/", type: "fuse")]), "a non-local mount on / covers every path")
        let facts = SharedFileFacts(callerSandboxed: false, name: "", descriptor: .init(device: 1, inode: 2, isRegular: true), kernelPath: "/run/outbox/\u{301}x",
                                    atPath: .init(device: 1, inode: 2, isRegular: true), readable: true, excludedDirectories: ["/run/outbox"])
        #expect(DeviceFileSource.of(facts) == .outboxCopy, "a file in the outbox is never sent by its path")
    }

    /// The path read through the kept `/proc/self/fd` is the one `/proc/self/fd/N` gives; none
    /// for a pipe (not absolute) or a descriptor that is not open.
    @Test func theKernelPathIsReadThroughTheKeptDirectory() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/a b é.txt", "text")
        let fd = open(tree.root + "/a b é.txt", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let expected = try #require(FileDescriptor.lending(fd) { SharedFileFacts.kernelPath(of: $0) })
        #expect(DeviceFileLook.kernelPath(of: fd) == expected && expected.hasSuffix("/a b é.txt"))
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(DeviceFileLook.kernelPath(of: ends[0]) == nil)
        let unused = dup(fd)
        close(unused)
        #expect(DeviceFileLook.kernelPath(of: unused) == nil && DeviceFileLook.kernelPath(of: -1) == nil)
        // A name that is not UTF-8 gives no path (as the descriptor thread's look gives none).
        let raw = Array((tree.root + "/bad").utf8) + [0xFF, 0xC3, UInt8(ascii: "."), 0]
        let bad = raw.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        #expect(bad >= 0)
        defer { close(bad) }
        #expect(FileDescriptor.lending(bad) { SharedFileFacts.kernelPath(of: $0) } == nil)
        #expect(DeviceFileLook.kernelPath(of: bad) == nil)
    }

    @Test func aRealFileHereAndProcNot() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/a.txt", "text")
        let fd = open(tree.root + "/a.txt", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let path = try #require(FileDescriptor.lending(fd) { SharedFileFacts.kernelPath(of: $0) })
        let mounts = DeviceFileLook.mounts(try SmallFile.read("/proc/self/mountinfo", limit: 1 << 22, sizeKnown: false).bytes)
        let passed = mounts.filter { DeviceFileSource.isWithin(path, $0.mountPoint) }
        #expect(DeviceFileLook.isLocal(fd: fd, path: path) == passed.allSatisfy { DeviceFileLook.localTypes.contains($0.type) }, "\(path) through \(passed)")
        let proc = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        defer { close(proc) }
        #expect(!DeviceFileLook.isLocal(fd: proc, path: "/proc/self/status"))
    }


    /// The look from one `statx` finds what the `/proc` files and `fstat` find: the same path and
    /// verdict, and the descriptor's device, inode and mode; nothing for `/proc` or a closed
    /// descriptor. A table with a 9p mount (whose `statx` asks its server) is not looked at so.
    @Test func oneStatxFindsWhatFdinfoAndFstatFind() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/a.txt", "text")
        let fd = open(tree.root + "/a.txt", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let path = try #require(DeviceFileLook.kernelPath(of: fd))
        let seen = DeviceFileLook.look(fd: fd)
        #expect(seen?.path == (DeviceFileLook.isLocal(fd: fd, path: path) ? path : nil))
        if let seen, let status = seen.status {
            var st = stat()
            #expect(fstat(fd, &st) == 0)
            #expect(status.st_dev == st.st_dev && status.st_ino == st.st_ino && status.st_mode == st.st_mode && status.st_size == st.st_size)
        }
        let proc = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        defer { close(proc) }
        #expect(DeviceFileLook.look(fd: proc) == nil && DeviceFileLook.look(fd: 999_999) == nil)
        let mounts = DeviceFileLook.mounts(Array(Self.table.utf8))
        #expect(DeviceFileLook.MountIndex(mounts).statusAnswersAtOnce)
        #expect(!DeviceFileLook.MountIndex(mounts + [DeviceFileLook.Mount(id: 30, mountPoint: "/mnt/host", type: "9p")]).statusAnswersAtOnce)
        #expect(DeviceFileLook.MountIndex(mounts + [DeviceFileLook.Mount(id: 31, mountPoint: "/run/user/1000/doc", type: "fuse.portal")]).statusAnswersAtOnce)
    }

    /// The mount id read through the kept `/proc/self/fdinfo` directory is the kernel's, for a
    /// file, a directory, a pipe and `/proc` itself; none for a descriptor that is not open.
    @Test func theMountIDIsTheOneFdinfoNames() throws {
        let tree = XDGTree(dataDirCount: 1)
        tree.write(tree.root + "/a.txt", "text")
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        let fds = [open(tree.root + "/a.txt", O_RDONLY | O_CLOEXEC), open(tree.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
                   open("/proc/self/status", O_RDONLY | O_CLOEXEC), open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC)] + pipeEnds
        defer { for fd in fds { close(fd) } }
        for fd in fds {
            let text = try SmallFile.read("/proc/self/fdinfo/\(fd)", limit: 1 << 16, sizeKnown: false).bytes
            let expected = try #require(DeviceFileLook.mountID(fdinfo: text))
            #expect(DeviceFileLook.mountID(of: fd) == expected, "descriptor \(fd)")
        }
        let unused = dup(fds[0])
        close(unused)
        #expect(DeviceFileLook.mountID(of: unused) == nil)
        #expect(DeviceFileLook.mountID(of: -1) == nil)
    }
    /// The keeper looks here only once a look on a descriptor thread resolved the outbox and the
    /// Inboxes; its facts are then the thread's.
    @Test func theKeepersLookHereMatchesTheThreads() throws {
        let tree = XDGTree(dataDirCount: 1)
        let keeper = OutboxKeeper(outbox: Outbox(directory: tree.root + "/run/outbox", lifetime: 600), runner: InlineRunner()) { _, _ in }
        tree.write(tree.root + "/a.txt", "text")
        let fd = open(tree.root + "/a.txt", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let caller = Caller(busName: ":1.9", id: "org.example.App")
        let look = keeper.localLook(caller: caller, inbox: tree.root + "/inbox")
        #expect(!look.isLocal(fd), "nothing resolved yet: the first look is on a thread")
        let onThread = keeper.facts(ofFile: fd, name: "a.txt", caller: caller, inbox: tree.root + "/inbox")
        let path = try #require(onThread.kernelPath)
        #expect(look.isLocal(fd) == DeviceFileLook.isLocal(fd: fd, path: path))
        #expect(look.kernelPath(fd) == (look.isLocal(fd) ? path : nil))
        var status = stat()
        #expect(fstat(fd, &status) == 0)
        #expect(look.facts(fd, "a.txt", path, status) == onThread)
        #expect(!keeper.localLook(caller: caller, inbox: tree.root + "/other-inbox").isLocal(fd), "resolved for other directories")
    }

    /// The look by name refuses what ``Documents/inspect(_:contentType:)`` refuses, and names the
    /// type from the name alone.
    @Test func theLookByNameChecksAsInspectDoes() throws {
        let tree = XDGTree(dataDirCount: 1)
        let documents = Documents(types: ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"]), inbox: Inbox(root: tree.root + "/inbox"),
                                  handlersAlongChain: { chain in (chain.first ?? "", []) })
        tree.writeBytes(tree.root + "/cat.png", [0, 1, 2, 3])
        tree.mkdir(tree.root + "/folder")
        for (path, flags, expected) in [(tree.root + "/cat.png", O_WRONLY, ServiceFailure.Kind.accessDenied), (tree.root + "/cat.png", SealedData.pathOnlyFlag, .accessDenied),
                                        (tree.root + "/folder", O_RDONLY | O_DIRECTORY, .invalidArgument)] {
            let fd = open(path, flags | O_CLOEXEC)
            defer { close(fd) }
            let viaName = Result { () throws(ServiceFailure) in try FileDescriptor.lending(fd) { d throws(ServiceFailure) in try documents.inspectByName(d) } }
            let viaInspect = Result { () throws(ServiceFailure) in try FileDescriptor.lending(fd) { d throws(ServiceFailure) in try documents.inspect(d, contentType: nil) } }
            guard case .failure(let a) = viaName, case .failure(let b) = viaInspect else { Issue.record("\(path) \(flags) was taken"); continue }
            #expect(a.kind == expected && a == b, "\(path) \(flags)")
        }
        let fd = open(tree.root + "/cat.png", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let found = try FileDescriptor.lending(fd) { d throws(ServiceFailure) in try documents.inspectByName(d) }
        #expect(found.name == "cat.png" && found.type.name == "image/png", "by its name: the bytes are not a PNG")
    }

    /// A share's intake looks at a file here when the local look says so (its type by its name,
    /// its facts the local look's), refusing what the thread's look refuses, its item named.
    @Test func theIntakeLooksHereWhenItMay() async throws {
        let tree = XDGTree(dataDirCount: 1)
        let documents = Documents(types: ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"]), inbox: Inbox(root: tree.root + "/inbox"),
                                  handlersAlongChain: { chain in (chain.first ?? "", []) })
        tree.writeBytes(tree.root + "/notes.zzq", Array("plain words".utf8))
        let keys = SharedItemTests.keys
        let notes = tree.root + "/notes.zzq"
        let here = DeviceLocalLook(kernelPath: { _ in notes }, facts: { fd, name, _, _ in
            SharedFileFacts(callerSandboxed: false, name: name, descriptor: nil, kernelPath: "/here/\(fd)", atPath: nil, readable: true, excludedDirectories: [])
        })
        let thread: @Sendable (Int32, String) -> SharedFileFacts = { fd, name in
            SharedFileFacts(callerSandboxed: false, name: name, descriptor: nil, kernelPath: "/thread/\(fd)", atPath: nil, readable: true, excludedDirectories: [])
        }
        let file = HeldFD(reading: tree.root + "/notes.zzq")
        let items = try await SharedItem.intake([["file": .descriptor(file)]], keys: keys, documents: documents,
                                                runner: InlineRunner(refusing: ServiceFailure(.failed, "not on a thread")), key: "k", facts: thread, local: here)
        #expect(items.first?.summary == ShareItemSummary(kind: .file, type: "application/octet-stream") && items.first?.name == "notes.zzq", "by its name, which says nothing")
        #expect(items.first?.facts?.kernelPath == "/here/\(file.rawValue)")
        let onThread = try await SharedItem.intake([["file": .descriptor(file)]], keys: keys, documents: documents, runner: InlineRunner(), key: "k", facts: thread,
                                                   local: DeviceLocalLook(kernelPath: { _ in nil }, facts: here.facts))
        #expect(onThread.first?.facts?.kernelPath == "/thread/\(file.rawValue)" && onThread.first?.summary.type == "text/plain", "the thread's look reads the content")
        let writeOnly = HeldFD(open(tree.root + "/notes.zzq", O_WRONLY | O_CLOEXEC))
        await #expect(throws: ServiceFailure(.accessDenied, "item 0: the descriptor does not allow reading the file (opened with O_PATH or write-only): open it for reading")) {
            try await SharedItem.intake([["file": .descriptor(writeOnly)]], keys: keys, documents: documents, runner: InlineRunner(), key: "k", facts: thread, local: here)
        }
    }
}
