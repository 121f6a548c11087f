import DBus
import LinuxSystem
import SchemeBridgeContract
import SchemeBridgeCore

/// The core's ``DocumentPortalPort``: the D-Bus layer's ``DBus/DocumentPortal`` client.
struct DocumentPortalHandOff: DocumentPortalPort {
    let connection: Connection

    /// Adds the file at `path` as a new document and grants `appID` `permissions` (`read`,
    /// `write`); returns the document's id. The portal wants an `O_PATH` descriptor, opened here
    /// from `path` (the Inbox copy, or `/proc/self/fd/N` for the caller's own file: that very file).
    /// - Throws: `LaunchFailed` when the file cannot be opened or the portal is not there or refuses.
    func add(path: [UInt8], appID: AppID, permissions: [String]) async throws -> String {
        let fd: Int32
        do { fd = try FileDescriptor.open(bytes: path, SealedData.pathOnlyFlag).take() } catch { throw ContractError.launchFailed("cannot open the document for the document portal: \(error)") }
        do { return try await DocumentPortal(connection: connection).addFull(UnixFD(owning: fd), appID: appID.text, permissions: permissions) } catch {
            throw ContractError.launchFailed("the document portal (\(DocumentPortal.name.rawValue)) could not take the document for the sandboxed app \(appID): \(error.name.rawValue): \(error.message)")
        }
    }

    /// Whether a persistent document names the file at `path` (an Inbox copy then outlives the retention: `PortalInboxCopies.swift`).
    func hasDocument(path: [UInt8]) async -> Bool { await DocumentPortal(connection: connection).lookup(path: path) != nil }
}

/// A descriptor a caller sent is one the core's ``DocumentDeliverer`` reads.
extension UnixFD: HeldDescriptor {}
