import DBus
import Glibc
import LinuxSystem
import SchemeBridgeContract
import SchemeBridgeCore

/// Documents on the bus: `OpenFile` (detect the type, pick the app, hand it the document —
/// an Inbox copy or the file itself, through the document portal for a Flatpak app:
/// ``DocumentDeliverer`` — and launch it) and the type queries. Reading the caller's descriptor runs
/// on the descriptor threads; everything else as for URLs.
extension Opening {
    /// `OpenFile(h, a{sv}) → a{sv}`. Every failure is also announced with `URLFailed` (the URL is
    /// `file://` and the file's name), every success with `URLHandled` (the Inbox copy's URL).
    func openFile(_ fd: UnixFD, options rawOptions: [String: DBusValue], sender: String) async throws -> OpenResults {
        var shownName = "document"
        do {
            let options = try OpenOptions(checking: rawOptions)
            let caller = await callers.caller(sender)
            let documents = self.documents
            let (name, fileName, type) = try await deliverer.descriptors.run(for: caller.appID ?? sender) { () throws in
                try fd.withFileDescriptor { d throws(OpenFailure) in
                    let (name, type) = try documents.inspect(d, contentType: options.contentType)
                    return (name, Documents.nameBytes(of: d), type)
                }
            }
            shownName = name
            return try await openDocument(fd, name: name, fileName: fileName, type: type, options: options, caller: caller)
        } catch {
            let error = DBusError.from(error)
            logger.notice("could not open the document \(shownName): \(error.name.rawValue): \(error.message)")
            announcer.announce(URLFailed(url: PercentEncoding.fileURL(path: "/" + shownName), errorName: error.name.rawValue, message: error.message), to: sender)
            throw error
        }
    }

    /// Opens the readable regular file `fd` (named `name`, of `type`, as ``Documents/inspect(_:contentType:)``
    /// found): decides the app (default, named, or asked), hands the document over as `options.mode`
    /// says (``DocumentDeliverer``: an Inbox copy charged to the caller,
    /// or the file itself; through the document portal for a Flatpak app) and launches the app. Used by
    /// `OpenFile` and for files a device sends.
    func openDocument(_ fd: UnixFD, name: String, fileName: [UInt8]? = nil, type: ContentType, options: OpenOptions,
                      caller: Caller, receivedFrom: String? = nil) async throws -> OpenResults {
        let key = caller.appID ?? caller.busName
        let decided = try await handler(for: .document(type), options: options, caller: caller, receivedFrom: receivedFrom)
        guard let id = decided.id, let entry = registry.entry(id: id.desktopID) else {
            throw ContractError.noHandler("no installed application opens \(type) documents")
        }
        let config = broker.policy.current
        deliverer.sweepInboxes(retention: config.inboxRetention)
        // A sandboxed caller's file itself is a name it can re-point: it gets a copy (the core's rule).
        let mode = DocumentHandOff.handsOverFileItself(callerSandboxed: caller.sandboxed) ? options.mode : .copy
        if mode != options.mode { logger.info("\(name) from the sandboxed \(key) is handed over as a copy, not in place") }
        let delivery = try await deliverer.deliver(fd, name: name, fileName: fileName, to: entry, mode: mode == .inPlace ? .inPlace : .copy, key: key,
                                         sendingApp: InboxSender(caller.id), limits: config.inboxLimits)
        let path = delivery.path
        do {
            // The URL carries the path's bytes (%-encoded), so the handler gets them exactly.
            let url = try SchemeURL.file(delivery.pathBytes, "the document's path")
            let request = OpenRequest(url: url, handler: entry.id, activationToken: decided.launchToken(callerToken: options.activationToken),
                                      launchImage: options.launchImage, scale: options.scale, caller: caller)
            let admission = try broker.admit(document: url, entry: entry, request: request, searchPath: searchPath,
                                             sessionScale: scale.current, splashAvailable: splashAvailable, inDocumentPortal: delivery.inPortal)
            var results = try await launch(admission, annotation: options.annotation, caller: request.caller,
                                           method: ContractMethod.openFile, reply: nil, contentType: type.name)
            results.contentType = type.name
            results.path = path
            return results
        } catch {
            delivery.removeCopy()  // nothing was started with it
            throw error
        }
    }
}
