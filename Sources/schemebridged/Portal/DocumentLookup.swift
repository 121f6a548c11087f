import DBus

/// The document portal's `Lookup(ay filename) → s doc_id` (host callers only; "" none): whether a
/// document refers to an Inbox copy, which then outlives the retention (`PortalInboxCopies.swift`).
extension DocumentPortalHandOff {
    func hasDocument(path: [UInt8]) async -> Bool {
        // A byte string the portal reads as a C string: NUL-terminated.
        let reply = try? await connection.call(destination: DocumentPortal.name, path: DocumentPortal.path, interface: DocumentPortal.interface,
                                               member: "Lookup", [.bytes(path + [0])], timeout: .seconds(10))
        return reply?.first?.string.map { !$0.isEmpty } ?? false
    }
}
