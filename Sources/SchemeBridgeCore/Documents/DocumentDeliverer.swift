import Glibc
import LinuxSystem

/// The document portal (`org.freedesktop.portal.Documents`) as the deliverer needs it; the daemon implements it.
public protocol DocumentPortalPort: Sendable {
    /// Adds the file at `path` as a new document, granted to `appID` with `permissions`; its id.
    func add(path: [UInt8], appID: AppID, permissions: [String]) async throws -> String
    /// Whether a document refers to the file at `path` (the portal's `Lookup`); false when the
    /// portal is not there. An Inbox copy lives as long as its document (``Inbox/expired(retention:now:)``).
    func hasDocument(path: [UInt8]) async -> Bool
}

/// Where a document's handler gets it (`OpenFile`, a received file, a share's files;
/// ``DocumentHandOff``): an Inbox copy or the file itself, through the document portal when the
/// handler is a Flatpak app; and the Inbox sweeps.
public struct DocumentDeliverer: Sendable {
    public let documents: Documents
    public let descriptors: DescriptorWork
    let portal: any DocumentPortalPort
    let log: @Sendable (String) -> Void
    /// When the Inboxes are swept (at most once a minute).
    let inboxSweeps = InboxSweepSchedule()

    /// `log`: told what went into the document portal.
    public init(documents: Documents, descriptors: DescriptorWork, portal: any DocumentPortalPort, log: @escaping @Sendable (String) -> Void) {
        (self.documents, self.descriptors, self.portal, self.log) = (documents, descriptors, portal, log)
    }

    /// How the document is handed over.
    public enum Mode: Sendable, Equatable {
        /// An Inbox copy charged to the sender.
        case copy
        /// The file itself.
        case inPlace
    }

    /// What the handler is given.
    public struct DocumentDelivery: Sendable {
        /// The path passed to the handler (an Inbox copy, the file, or a portal path), as bytes:
        /// the file's own name need not be UTF-8.
        public let pathBytes: [UInt8]
        /// ``pathBytes`` as text (the `path` result; a byte that is not UTF-8 shows as U+FFFD).
        public var path: String { String(decoding: pathBytes, as: UTF8.self) }
        /// Whether `path` is a document portal path granted to the handler's app.
        public let inPortal: Bool
        /// The Inbox copy made for it, to remove when the launch fails (bytes: it keeps the file's name).
        public let inboxCopy: [UInt8]?

        /// Removes the Inbox copy made for it, if any (nothing was started with it).
        public func removeCopy() {
            if let inboxCopy { _ = inboxCopy.withPathCString { unlink($0) } }
        }
    }

    /// Hands the document open as `fd` (named `name`; `fileName`, when given, is that name as the
    /// kernel has it, bytes that need not be UTF-8, which an Inbox copy keeps) to `entry` in `mode`:
    /// reading the caller's descriptor runs on the descriptor threads, under `key`.
    public func deliver(_ fd: some HeldDescriptor, name: String, fileName: [UInt8]? = nil, to entry: DesktopEntry, mode: Mode, key: String,
                        sendingApp: InboxSender, limits: InboxLimits) async throws -> DocumentDelivery {
        let documents = self.documents
        let local: [UInt8], canWrite: Bool, inboxCopy: [UInt8]?, portalSource: [UInt8]
        switch mode {
        case .copy:
            let copy = try await descriptors.run(for: key) { () throws in
                try fd.withFileDescriptor { d in try documents.inbox.place(d, nameBytes: fileName ?? Array(name.utf8), desktopID: entry.id, caller: sendingApp, limits: limits) }
            }
            (local, canWrite, inboxCopy, portalSource) = (copy, false, copy, copy)
        case .inPlace:
            let file = try await descriptors.run(for: key) { () throws in try fd.withFileDescriptor { d in try InPlaceFile.locate(d) } }
            // The portal gets that very file (the caller's descriptor), not whatever the path names later.
            (local, canWrite, inboxCopy, portalSource) = (file.pathBytes, file.writable, nil, Array("/proc/self/fd/\(fd.rawValue)".utf8))
        }
        let rule = DocumentHandOff(inPlace: mode == .inPlace, sandboxAppID: entry.flatpakAppID, callerCanWrite: canWrite)
        guard let appID = rule.sandboxAppID else { return DocumentDelivery(pathBytes: local, inPortal: false, inboxCopy: inboxCopy) }
        do {
            let id = try await portal.add(path: portalSource, appID: appID, permissions: rule.portalPermissions)
            // The portal names the document after the file, byte for byte.
            let base = local.split(separator: UInt8(ascii: "/")).last.map { Array($0) } ?? Array(name.utf8)
            log("document \(String(decoding: base, as: UTF8.self)) is \(id) in the document portal for \(appID) (\(rule.portalPermissions.joined(separator: "+")))")
            return DocumentDelivery(pathBytes: Array(DocumentHandOff.portalPath(documentID: id, name: "").utf8) + base, inPortal: true, inboxCopy: inboxCopy)
        } catch {
            if let inboxCopy { _ = inboxCopy.withPathCString { unlink($0) } }
            throw error
        }
    }

    /// Removes Inbox files past `retention` that no document of the portal refers to (``Inbox``'s
    /// lifetime: `PortalInboxCopies.swift`) when ``InboxSweepSchedule`` says so (on a descriptor thread).
    public func sweepInboxes(retention: Int64) {
        let now = Int64(time(nil))
        guard inboxSweeps.isDue(now: now) else { return }
        let inbox = documents.inbox
        Task.detached { [descriptors, portal] in
            let expired = (try? await descriptors.run(for: "inbox sweep") { () throws in inbox.expired(retention: retention, now: now) }) ?? []
            guard !expired.isEmpty else { return }
            var unreferenced: [[UInt8]] = []
            for path in expired {
                if await !portal.hasDocument(path: path) { unreferenced.append(path) }
            }
            let gone = unreferenced
            _ = try? await descriptors.run(for: "inbox sweep") { () throws in inbox.remove(expired: gone, retention: retention, now: now) }
        }
    }
}

extension Array where Element == UInt8 {
    /// Runs `body` with these bytes — a path, any a file name may hold — and a NUL, as a C string.
    public func withPathCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (self + [0]).withUnsafeBufferPointer { try $0.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) } }
    }
}
