/// A typed client of the document portal (`org.freedesktop.portal.Documents`,
/// xdg-document-portal): it makes a file visible in a Flatpak app's sandbox at
/// `/run/user/UID/doc/ID/NAME`, with the permissions granted to that app id only (the FUSE file
/// system enforces them).
public struct DocumentPortal: Sendable {
    public static let name: BusName = "org.freedesktop.portal.Documents"
    public static let path: ObjectPath = "/org/freedesktop/portal/documents"
    public static let interface: InterfaceName = "org.freedesktop.portal.Documents"

    public let connection: Connection

    public init(connection: Connection) { self.connection = connection }

    /// `AddFull(ah o_path_fds, u flags, s app_id, as permissions) → (as doc_ids, a{sv} extra)` of
    /// the one `O_PATH` descriptor `fd`, flags 0: a new, transient document (never one added
    /// before, so no permission granted earlier comes along), `appID` granted `permissions`
    /// (`read`, `write`). Returns the document's id; `Failed` when the answer names none.
    public func addFull(_ fd: UnixFD, appID: String, permissions: [String], timeout: Duration = .seconds(60)) async throws(DBusError) -> String {
        let reply = try await connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "AddFull",
                                              [.array(element: .unixFD, [.unixFD(fd)]), .uint32(0), .string(appID), .strings(permissions)],
                                              timeout: timeout)
        guard let id = reply.first?.arrayElements?.first?.string, !id.isEmpty, !id.contains("/") else {
            throw DBusError(.failed, "the document portal answered AddFull without a document id")
        }
        return id
    }

    /// `Lookup(ay filename) → s doc_id` (host callers only): the persistent document that names
    /// the file at `path` (bytes; sent NUL-terminated, as the portal reads a C string), nil when
    /// none does or the portal cannot answer. A transient document (``addFull(_:appID:permissions:timeout:)``'s)
    /// is never found so.
    public func lookup(path: [UInt8], timeout: Duration = .seconds(10)) async -> String? {
        let reply = try? await connection.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Lookup",
                                               [.bytes(path + [0])], timeout: timeout)
        return reply?.first?.string.flatMap { $0.isEmpty ? nil : $0 }
    }
}
