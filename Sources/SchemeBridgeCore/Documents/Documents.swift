import Glibc
import LinuxSystem

/// Documents (seed 000): what a caller's file is, which app opens it, and its copy in that
/// app's Inbox. The caller's descriptor is the proof that it may read the file: the service never
/// opens a path a caller names. Reading a caller's descriptor can block (a file system that never
/// answers): ``inspect(_:contentType:)`` and ``Inbox/place(_:name:desktopID:caller:limits:)`` run on
/// threads of their own.
public final class Documents: Sendable {
    /// The shared-mime-info database.
    public let types: ContentTypeDatabase
    /// The apps' Inboxes.
    public let inbox: Inbox
    /// The eligible handlers (default first) of the first type along a parent chain that has
    /// any, and that type: the registry's ``Registry/resolution(alongChain:)``.
    private let handlersAlongChain: @Sendable ([String]) -> (type: String, handlers: [DesktopID])

    public init(types: ContentTypeDatabase, inbox: Inbox,
                handlersAlongChain: @escaping @Sendable ([String]) -> (type: String, handlers: [DesktopID])) {
        self.types = types
        self.inbox = inbox
        self.handlersAlongChain = handlersAlongChain
    }

    /// The service's documents over `registry`: its content types (the environment's when it
    /// has none), the user's Inboxes, each type's handlers as ``Registry/resolution(alongChain:)`` finds them.
    public convenience init(registry: Registry, environment: [String: String]) {
        self.init(types: registry.contentTypes ?? ContentTypeDatabase(environment: environment), inbox: Inbox(environment: environment),
                  handlersAlongChain: { [registry] chain in
                      let found = registry.resolution(alongChain: chain)
                      return (found.type, found.resolution.handlers)
                  })
    }

    /// The handlers for `type`: those of the first type along its parent chain (the type, its
    /// declared parents, `text/plain` for text, `application/octet-stream`) that has any, and
    /// that type — an application removed for a type is not taken back by its parents.
    /// `inode/*` types are never opened as documents.
    public func handlers(forType type: String) -> (type: String, handlers: [DesktopID]) {
        let canonical = types.canonicalType(Self.lowercased(type))
        let found = handlersAlongChain(types.parentChain(of: canonical))
        return found.handlers.isEmpty ? (canonical, []) : found
    }

    /// The name of the readable regular file `descriptor` is open on (the last component of the
    /// path it was opened by); `AccessDenied` for an `O_PATH` or write-only descriptor,
    /// `InvalidArgs` for anything that is not a regular file. The descriptor's metadata only;
    /// `kernelPath`, when given, is its `/proc/self/fd` link as read already (not read again).
    func readableFileName(_ descriptor: borrowing FileDescriptor, kernelPath: [UInt8]? = nil) throws(OpenFailure) -> String {
        try readableFile(descriptor, kernelPath: kernelPath).name
    }

    /// ``readableFileName(_:kernelPath:)`` and the descriptor's `fstat` it checked (`status` when
    /// given: the descriptor's as taken already).
    func readableFile(_ descriptor: borrowing FileDescriptor, kernelPath: [UInt8]? = nil, status: stat? = nil) throws(OpenFailure) -> (name: String, status: stat) {
        let flags = fcntl(descriptor.rawValue, F_GETFL)
        guard flags >= 0, flags & SealedData.pathOnlyFlag == 0, flags & O_ACCMODE != O_WRONLY else {
            throw OpenFailure(.accessDenied, "the descriptor does not allow reading the file (opened with O_PATH or write-only): open it for reading")
        }
        let st: stat
        do { st = try status ?? descriptor.status() } catch { throw OpenFailure(.accessDenied, "the descriptor cannot be examined: \(error)") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw OpenFailure(.invalidArgument, "only regular files can be opened as documents, not \(ContentTypeDatabase.inodeType(mode: st.st_mode) ?? "this")")
        }
        return (String(decoding: kernelPath.map(Self.nameBytes(ofKernelPath:)) ?? Self.nameBytes(of: descriptor), as: UTF8.self), st)
    }

    /// What the caller handed over: a readable regular file (else `AccessDenied` for an `O_PATH`
    /// or write-only descriptor, `InvalidArgs` for anything that is not a regular file), its name
    /// (the last component of the path it was opened by), and its type (`contentType` when the
    /// caller says, else detected from the name and content). Blocking.
    public func inspect(_ descriptor: borrowing FileDescriptor, contentType: String?) throws(OpenFailure) -> (name: String, type: ContentType) {
        let name = try readableFileName(descriptor)
        _ = types.reloadIfChanged()  // live: a stat per mime directory
        if let contentType {
            let type = try ContentType(contentType)
            return (name, ContentType(detected: types.canonicalType(type.name)))
        }
        do {
            return (name, ContentType(detected: try types.contentType(forFileDescriptor: descriptor, name: name)))
        } catch {
            throw OpenFailure(error.code == EBADF ? .accessDenied : .failed, error.description)
        }
    }

    /// The type of a caller's descriptor named `name` (`ContentTypeForFile`). Blocking.
    public func contentType(of descriptor: borrowing FileDescriptor, name: String) throws(OpenFailure) -> String {
        do { _ = try descriptor.status() } catch { throw OpenFailure(.accessDenied, "the descriptor cannot be examined: \(error)") }
        _ = types.reloadIfChanged()
        do {
            return try types.contentTypeAsGio(forFileDescriptor: descriptor, name: name.isEmpty ? nil : name)
        } catch {
            throw OpenFailure(error.code == EBADF ? .accessDenied : .failed, error.description)
        }
    }

    /// The name a descriptor was opened by: the last component of its path in `/proc/self/fd`
    /// (without ` (deleted)`); "document" when it has none (a memfd, a pipe).
    static func name(of fd: borrowing FileDescriptor) -> String {
        String(decoding: nameBytes(of: fd), as: UTF8.self)
    }

    /// The name of the file `fd` is open on as the kernel has it, bytes (it need not be UTF-8):
    /// the last component of `/proc/self/fd`'s link; `document` when there is none.
    public static func nameBytes(of fd: borrowing FileDescriptor) -> [UInt8] {
        nameBytes(ofKernelPath: fd.kernelPath() ?? [])
    }

    /// ``nameBytes(of:)`` from the descriptor's link as read already.
    static func nameBytes(ofKernelPath link: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        guard link.first == slash else { return Array("document".utf8) }
        var end = link.endIndex
        if link.count > 10, link.suffix(10).elementsEqual(" (deleted)".utf8) { end -= 10 }
        while end > 1, link[end - 1] == slash { end -= 1 }
        // The last component: after the last `/` (one slice, not the path split into all of them).
        let start = link[..<end].lastIndex(of: slash).map { $0 + 1 } ?? 0
        return start == end ? Array("document".utf8) : Array(link[start..<end])
    }

    static func lowercased(_ s: String) -> String { Registry.lowercasedASCII(s) }
}
