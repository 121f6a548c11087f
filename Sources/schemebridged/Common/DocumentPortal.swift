import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore

/// The document portal (`org.freedesktop.portal.Documents`, xdg-document-portal) as a typed
/// client: it makes a file visible in a Flatpak app's sandbox at `/run/user/UID/doc/ID/NAME`,
/// with the permissions granted to that app id only (the FUSE file system enforces them).
struct DocumentPortal: DocumentPortalPort {
    static let name: BusName = "org.freedesktop.portal.Documents"
    static let path: ObjectPath = "/org/freedesktop/portal/documents"
    static let interface: InterfaceName = "org.freedesktop.portal.Documents"

    let connection: Connection

    /// Adds the file at `path` as a new document (never one added before, so no permission
    /// granted earlier comes along) and grants `appID` `permissions` (`read`, `write`).
    /// Returns the document's id. The portal wants an `O_PATH` descriptor, opened here from
    /// `path` (the Inbox copy, or `/proc/self/fd/N` for the caller's own file: that very file).
    /// - Throws: `LaunchFailed` when the file cannot be opened or the portal is not there or refuses.
    func add(path: [UInt8], appID: String, permissions: [String]) async throws -> String {
        let fd = path.withPathCString { open($0, SealedData.pathOnlyFlag | O_CLOEXEC) }
        guard fd >= 0 else { throw ContractError.launchFailed("cannot open the document for the document portal: \(String(cString: strerror(errno)))") }
        let reply: [DBusValue]
        do {
            // AddFull(ah o_path_fds, u flags, s app_id, as permissions) → (as doc_ids, a{sv} extra); flags 0: a new, transient document.
            reply = try await connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "AddFull",
                                              [.array(element: .unixFD, [.unixFD(UnixFD(owning: fd))]), .uint32(0), .string(appID), .strings(permissions)],
                                              timeout: .seconds(60))
        } catch {
            throw ContractError.launchFailed("the document portal (\(Self.name.rawValue)) could not take the document for the sandboxed app \(appID): \(error.name.rawValue): \(error.message)")
        }
        guard let id = reply.first?.arrayElements?.first?.string, !id.isEmpty, !id.contains("/") else {
            throw ContractError.launchFailed("the document portal answered AddFull without a document id")
        }
        return id
    }
}

/// A descriptor a caller sent is one the core's ``DocumentDeliverer`` reads.
extension UnixFD: HeldDescriptor {}
