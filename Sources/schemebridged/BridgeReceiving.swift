import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// What a device sends (KDE Connect's `shareReceived`), done as the core's ``ReceivedAction``
/// says: a file goes the document path (`openDocument`: the app for its type, asked or the
/// default, a read-only Inbox copy, the same quotas and checks as `OpenFile`); a URL the URL path.
extension Bridge {
    /// The caller a received share is charged to and shown as (`source`).
    static let engineCaller = CallerCache.Caller(busName: "", pid: nil, appID: "org.kde.kdeconnect.daemon")

    /// Opens what a device sent, as the core's ``ReceivedAction`` says; failures are logged
    /// (nobody waits for an answer).
    func openReceived(_ received: ReceivedFromDevice) async {
        let mode = broker.policy.current.openReceived
        let from = devices.engine.devices.first { $0.id == received.deviceID }?.name ?? received.deviceID
        let sender = "kdeconnect"
        do throws(DBusError) {
            let registry = self.registry
            let action = try await received.share.action(mode: mode, urlInText: { path throws(DBusError) in try await receivedURL(path) },
                                                         opensScheme: { registry.schemes.contains($0) })
            switch action {
            case .leave:
                logger.info("received a share from \(from); [Devices] OpenReceived=never leaves it where KDE Connect put it")
            case .openFile(let path, let type, let ask):
                var options = OpenOptions()
                options.ask = ask
                let results = try await openReceivedFile(path, forcedType: type, options: options, sender: sender)
                logger.info("opened the \(type == nil ? "file" : "text") \(from) sent with \(results.handler)")
            case .openURL(let url, let ask):
                let raw: [String: DBusValue] = [OpenOptions.Key.ask: .variant(.boolean(ask))]
                let results = try await open(url, options: raw, sender: sender, method: ContractMethod.openURLWithOptions)
                logger.info("opened the URL \(from) sent with \(results.handler)")
            }
        } catch {
            logger.warning("could not open what \(from) sent: \(error.name.rawValue): \(error.message)")
        }
    }

    /// Opens the file at `path` without following a symlink or blocking on a FIFO, then hands it
    /// to ``openDocument(_:name:type:options:sender:known:)`` as `OpenFile` would.
    private func openReceivedFile(_ path: String, forcedType: String?, options: OpenOptions, sender: String) async throws(DBusError) -> OpenResults {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw DBusError(.failed, "cannot open the received file \(path): \(String(cString: strerror(errno)))")
        }
        let owned = UnixFD(owning: fd)
        let documents = self.documents
        let (name, type) = try await descriptors.run(for: Self.engineCaller.appID ?? sender) { () throws(DBusError) in
            try Self.adapt { () throws(OpenFailure) in try documents.inspect(fd, contentType: forcedType) }
        }
        return try await openDocument(owned, name: name, type: type, options: options, sender: sender, known: Self.engineCaller)
    }

    /// The URL received text is, if it is one (``ReceivedShare/url(inFile:)`` on a descriptor thread).
    private func receivedURL(_ path: String) async throws(DBusError) -> String? {
        try await descriptors.run(for: Self.engineCaller.appID ?? "kdeconnect") { () throws(DBusError) in
            try Self.adapt { () throws(OpenFailure) in try ReceivedShare.url(inFile: path) }
        }
    }
}
