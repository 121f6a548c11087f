import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// Where `OpenFile`'s handler gets the document (the core's ``DocumentHandOff``): an Inbox
/// copy or the file itself, through the document portal when the handler is a Flatpak app.
extension Bridge {
    /// What the handler is given.
    struct DocumentDelivery: Sendable {
        /// The path passed to the handler (an Inbox copy, the file, or a portal path).
        let path: String
        /// Whether `path` is a document portal path granted to the handler's app.
        let inPortal: Bool
        /// The Inbox copy made for it, to remove when the launch fails.
        let inboxCopy: String?
    }

    /// Hands the document open as `fd` (named `name`) to `entry` in `mode`: reading the caller's
    /// descriptor runs on the descriptor threads, under `key`.
    func deliver(_ fd: UnixFD, name: String, to entry: DesktopEntry, mode: OpenOptions.DocumentMode, key: String,
                 sendingApp: String, limits: InboxLimits) async throws(DBusError) -> DocumentDelivery {
        let documents = self.documents
        let local: String, canWrite: Bool, inboxCopy: String?, portalSource: String
        switch mode {
        case .copy:
            local = try await descriptors.run(for: key) { () throws(DBusError) in
                try Self.adapt { () throws(OpenFailure) in try documents.inbox.place(fd.rawValue, name: name, desktopID: entry.id, caller: sendingApp, limits: limits) }
            }
            (canWrite, inboxCopy, portalSource) = (false, local, local)
        case .inPlace:
            let file = try await descriptors.run(for: key) { () throws(DBusError) in
                try Self.adapt { () throws(OpenFailure) in try InPlaceFile.locate(fd.rawValue) }
            }
            // The portal gets that very file (the caller's descriptor), not whatever the path names later.
            (local, canWrite, inboxCopy, portalSource) = (file.path, file.writable, nil, "/proc/self/fd/\(fd.rawValue)")
        }
        let rule = DocumentHandOff(inPlace: mode == .inPlace, sandboxAppID: entry.flatpakAppID, callerCanWrite: canWrite)
        guard let appID = rule.sandboxAppID else { return DocumentDelivery(path: local, inPortal: false, inboxCopy: inboxCopy) }
        do {
            let id = try await DocumentPortal(connection: connection).add(path: portalSource, appID: appID, permissions: rule.portalPermissions)
            let base = local.split(separator: "/").last.map(String.init) ?? name
            logger.info("document \(base) is \(id) in the document portal for \(appID) (\(rule.portalPermissions.joined(separator: "+")))")
            return DocumentDelivery(path: DocumentHandOff.portalPath(documentID: id, name: base), inPortal: true, inboxCopy: inboxCopy)
        } catch {
            if let inboxCopy { unlink(inboxCopy) }
            throw error
        }
    }
}
