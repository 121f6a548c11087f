import DBus
import Glibc
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// What a device sends (KDE Connect's `shareReceived`), offered to the user per `[Devices]
/// OpenReceived`: a file goes the document path (`openDocument`: the app for its type, asked or
/// the default, a read-only Inbox copy, the same quotas and checks as `OpenFile`); text that is
/// one URL is opened as that URL; other text as a `text/plain` document.
extension Bridge {
    /// The caller a received share is charged to and shown as (`source`).
    static let engineCaller = CallerCache.Caller(busName: "", pid: nil, appID: "org.kde.kdeconnect.daemon")

    /// Opens what a device sent; failures are logged (nobody waits for an answer).
    func openReceived(_ received: ReceivedFromDevice) async {
        let mode = broker.policy.current.openReceived
        let from = devices.engine.devices.first { $0.id == received.deviceID }?.name ?? received.deviceID
        guard mode != .never else {
            logger.info("received a share from \(from); [Devices] OpenReceived=never leaves it where KDE Connect put it")
            return
        }
        var options = OpenOptions()
        options.ask = mode == .ask
        let sender = "kdeconnect"
        do throws(DBusError) {
            switch received.share {
            case .file(let path):
                let results = try await openReceivedFile(path, forcedType: nil, options: options, sender: sender)
                logger.info("opened the file \(from) sent with \(results.handler)")
            case .text(let path):
                if let url = try await receivedURL(path), registry.schemes.contains((try? Scheme(String(url.prefix { $0 != ":" })))?.name ?? "") {
                    let raw: [String: DBusValue] = [OpenOptions.Key.ask: .variant(.boolean(mode == .ask))]
                    let results = try await open(url, options: raw, sender: sender, method: ContractMethod.openURLWithOptions)
                    logger.info("opened the URL \(from) sent with \(results.handler)")
                } else {
                    let results = try await openReceivedFile(path, forcedType: "text/plain", options: options, sender: sender)
                    logger.info("opened the text \(from) sent with \(results.handler)")
                }
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

    /// The URL received text is, if it is one (read at most 64 KiB; a FIFO or symlink is not read).
    private func receivedURL(_ path: String) async throws(DBusError) -> String? {
        try await descriptors.run(for: Self.engineCaller.appID ?? "kdeconnect") { () throws(DBusError) in
            let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw DBusError(.failed, "cannot open the received text \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
            var buffer = [UInt8](repeating: 0, count: ReceivedShare.maximumTextBytes)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0, n < ReceivedShare.maximumTextBytes, let text = String(validating: buffer.prefix(n), as: UTF8.self) else { return nil }
            return ReceivedShare.url(inText: text)
        }
    }
}
