import CLinux
import Foundation
import Glibc
import Testing
@testable import SchemeBridgeCore

/// Which shared files go to a device's engine by their own path (no outbox copy): an unsandboxed
/// caller's regular file that the kernel's path still names, under its own name; everything
/// else is copied.
@Suite struct DeviceFileSourceTests {
    static let file = SharedFileFacts.Identity(device: 2049, inode: 77, isRegular: true)
    static let facts = SharedFileFacts(callerSandboxed: false, name: "report.pdf", descriptor: file, kernelPath: "/home/u/Documents/report.pdf",
                                       atPath: file, readable: true, excludedDirectories: ["/run/user/1000/schemebridge/outbox", "/home/u/.local/share/schemebridge/inbox"])

    @Test func anUnsandboxedCallersOwnFileGoesByItsPath() {
        #expect(DeviceFileSource.of(Self.facts) == .direct(path: "/home/u/Documents/report.pdf"))
        var unnamed = Self.facts
        unnamed.name = ""
        #expect(DeviceFileSource.of(unnamed) == .direct(path: "/home/u/Documents/report.pdf"))
    }

    @Test func aSandboxedOrUnidentifiedCallersFileIsCopied() {
        for sandboxed in [true, nil] as [Bool?] {
            var facts = Self.facts
            facts.callerSandboxed = sandboxed
            #expect(DeviceFileSource.of(facts) == .outboxCopy, "\(String(describing: sandboxed))")
        }
    }

    @Test func aFileThePathNoLongerNamesOrThatIsNotRegularIsCopied() {
        let other = SharedFileFacts.Identity(device: 2049, inode: 78, isRegular: true)
        let changes: [(String, (inout SharedFileFacts) -> Void)] = [
            ("replaced", { $0.atPath = other }),
            ("gone", { $0.atPath = nil }),
            ("deleted", { $0.kernelPath = "/home/u/Documents/report.pdf (deleted)"; $0.atPath = nil }),
            ("memfd", { $0.kernelPath = "/memfd:report.pdf (deleted)"; $0.atPath = nil; $0.name = "report.pdf (deleted)" }),
            ("no path", { $0.kernelPath = nil }),
            ("not examined", { $0.descriptor = nil }),
            ("not regular", { $0.descriptor?.isRegular = false; $0.atPath?.isRegular = false }),
            ("unreadable", { $0.readable = false }),
            ("renamed item", { $0.name = "invoice.pdf" }),
            ("relative", { $0.kernelPath = "report.pdf" }),
            ("dot-dot", { $0.kernelPath = "/home/u/../u/Documents/report.pdf" }),
            ("proc", { $0.kernelPath = "/proc/1/environ"; $0.name = "environ" }),
            ("sys", { $0.kernelPath = "/sys/kernel/notes"; $0.name = "notes" }),
            ("outbox", { $0.kernelPath = "/run/user/1000/schemebridge/outbox/99-ab/report.pdf" }),
            ("inbox", { $0.kernelPath = "/home/u/.local/share/schemebridge/inbox/org.example.App/report.pdf" }),
        ]
        for (what, change) in changes {
            var facts = Self.facts
            change(&facts)
            #expect(DeviceFileSource.of(facts) == .outboxCopy, "\(what)")
        }
        // The item's name is the path's last component by characters: a `/` a combining mark joins
        // (or one joined to what precedes it) separates nothing, so the name below is not the file's.
        for path in ["/home/u/Documents/\u{301}report.pdf", "/home/u/Documents\u{600}/report.pdf"] {
            var joined = Self.facts
            (joined.kernelPath, joined.name) = (path, String(path.utf8.split(separator: UInt8(ascii: "/")).last.map { Substring($0) } ?? ""))
            #expect(DeviceFileSource.of(joined) == .outboxCopy, "\(path)")
        }
        var accented = Self.facts
        (accented.kernelPath, accented.name) = ("/home/u/Documents/re\u{301}port.pdf", "re\u{301}port.pdf")
        #expect(DeviceFileSource.of(accented) == .direct(path: "/home/u/Documents/re\u{301}port.pdf"))
        // A sibling whose name starts like an excluded directory is not in it.
        var sibling = Self.facts
        sibling.kernelPath = "/run/user/1000/schemebridge/outbox-notes/report.pdf"
        #expect(DeviceFileSource.of(sibling) == .direct(path: "/run/user/1000/schemebridge/outbox-notes/report.pdf"))
    }

    /// A path is within a folder by whole components, in bytes; trailing `/`s of the folder do not count.
    @Test func withinAFolderIsByWholeComponents() {
        let cases: [(String, String, Bool)] = [
            ("/proc/1/environ", "/proc", true), ("/proc", "/proc", true), ("/proc", "/proc///", true), ("/procfs/x", "/proc", false),
            ("/pro", "/proc", false), ("/anything", "/", true), ("/anything", "//", true), ("/x", "", false),
            ("/home/u/é/a", "/home/u/é", true), ("/home/u/é\u{301}/a", "/home/u/é", false),
        ]
        for (path, folder, within) in cases { #expect(DeviceFileSource.isWithin(path, folder) == within, "\(path) in \(folder)") }
    }

    /// The facts of real descriptors: a file where it is goes by its path; an unlinked one, one
    /// replaced by another file, a memfd and a file in the (symlinked) outbox are copied.
    @Test func realDescriptorsAreJudgedByWhatTheKernelSays() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real-outbox", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/outbox", withDestinationPath: root + "/real-outbox")
        let resolvedRoot = try #require(realpath(root, nil).map { p in defer { free(p) }; return String(cString: p) })
        func opened(_ path: String) throws -> Int32 {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("content".utf8)))
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            try #require(fd >= 0)
            return fd
        }
        func source(_ fd: Int32, name: String) -> DeviceFileSource {
            DeviceFileSource.of(SharedFileFacts.gather(fd: fd, name: name, callerSandboxed: false, excluding: [root + "/outbox"]))
        }

        let here = try opened(root + "/here.txt")
        defer { close(here) }
        #expect(source(here, name: "here.txt") == .direct(path: resolvedRoot + "/here.txt"))
        #expect(source(here, name: "elsewhere.txt") == .outboxCopy)
        #expect(DeviceFileSource.of(SharedFileFacts.gather(fd: here, name: "", callerSandboxed: true, excluding: [])) == .outboxCopy)

        let unlinked = try opened(root + "/unlinked.txt")
        defer { close(unlinked) }
        unlink(root + "/unlinked.txt")
        #expect(source(unlinked, name: "unlinked.txt") == .outboxCopy)

        let replaced = try opened(root + "/replaced.txt")
        defer { close(replaced) }
        unlink(root + "/replaced.txt")
        #expect(FileManager.default.createFile(atPath: root + "/replaced.txt", contents: Data("other".utf8)))
        #expect(source(replaced, name: "replaced.txt") == .outboxCopy)

        let memfd = clinux_memfd("shared.txt")
        #expect(memfd >= 0)
        defer { close(memfd) }
        #expect(source(memfd, name: "shared.txt") == .outboxCopy)
        #expect(source(memfd, name: "") == .outboxCopy)

        let queued = try opened(root + "/real-outbox/queued.txt")
        defer { close(queued) }
        #expect(source(queued, name: "queued.txt") == .outboxCopy)

        let directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        #expect(source(directory, name: "") == .outboxCopy)
    }
}
