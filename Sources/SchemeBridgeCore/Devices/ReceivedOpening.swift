import LinuxSystem

/// What opening what a device sent asks of the session: the engine's devices, where it writes,
/// the descriptor threads, and the two open paths (a document as `OpenFile`, a URL as
/// `OpenURLWithOptions`), both charged to and shown as the engine. The daemon implements it
/// (`Receiving`); the rules — what is opened, checked where, said how — are this extension's, and
/// they serve ``ReceivedNotifierPort``'s `deviceName`, `deviceIcon`, `open` and `offered`.
public protocol ReceivedOpeningPort: Sendable {
    /// The devices the engine lists now.
    var nearbyDevices: [NearbyDevice] { get }
    /// The session's folders (where the engine writes: ``ReceivedPlaces``).
    var directories: XDGDirectories { get }
    /// What detects a received file's type.
    var documents: Documents { get }
    /// Where received files are opened and read (never the shared pool).
    var runner: any DescriptorRunner { get }
    /// `[Devices] OpenReceived` now.
    var openReceived: OpenReceived { get }
    /// Whether an installed app opens `scheme`.
    func opensScheme(_ scheme: String) -> Bool
    /// Opens the received file `fd` (owned: the port closes it), named `name`, of type `type`, as
    /// `OpenFile` would (the app for its type; the chooser when `ask`, saying it came from
    /// `from`); the handler's id.
    func openDocument(_ fd: Int32, name: String, type: ContentType, ask: Bool, from: String) async throws -> String
    /// Opens `url` as `OpenURLWithOptions` would (the chooser when `ask`); the handler's id.
    func openURL(_ url: String, ask: Bool) async throws -> String
    /// A failure of the open paths, as the log names it.
    func failure(_ error: any Error) -> ReceivedNotifierFailure
    /// Logs `message` at `level`.
    func log(_ level: ReceivedNotifierLogLevel, _ message: String)
}

extension ReceivedOpeningPort {
    /// The key the engine's descriptor work is charged to.
    static var engineKey: String { "org.kde.kdeconnect.daemon" }

    /// The name device `id` has in the engine (sanitised); a placeholder when it is not listed now.
    public func deviceName(_ id: String) -> String {
        nearbyDevices.first { $0.id == id }?.name ?? "A device that is not listed now"
    }

    /// The icon of device `id`'s kind; a phone's when it is not listed now.
    public func deviceIcon(_ id: String) -> String {
        (nearbyDevices.first { $0.id == id }?.kind ?? .phone).icon
    }

    /// Opens what a device sent, as ``ReceivedAction`` says under `mode` (``openReceived`` when
    /// nil): a file (or text that is no URL some app opens) as a document, a URL as a URL, both
    /// opened only where the engine writes (``ReceivedPlaces``). Failures are logged (nobody
    /// waits for an answer). Whether something was started.
    @discardableResult
    public func open(_ received: ReceivedFromDevice, mode given: OpenReceived? = nil) async -> Bool {
        let mode = given ?? openReceived
        let from = nearbyDevices.first { $0.id == received.deviceID }?.name ?? received.deviceID
        do {
            let places = self.places(received)
            let action = try await received.share.action(mode: mode, urlInText: { path throws in try await url(inText: .text(path), places: places) },
                                                         opensScheme: opensScheme)
            switch action {
            case .leave:
                log(.info, "received a share from \(from); [Devices] OpenReceived=never leaves it where KDE Connect put it")
                return false
            case .openFile(let share, let ask):
                let documents = self.documents
                let (fd, name, type) = try await runner.run(for: Self.engineKey) { () throws in
                    let opened = try places().open(share)
                    let (name, type) = try documents.inspect(opened, contentType: nil)
                    return (opened.take(), name, type)
                }
                let handler = try await openDocument(fd, name: name, type: type, ask: ask, from: from)
                log(.info, "opened the \(share.kind) \(from) sent with \(handler)")
            case .openURL(let url, let ask):
                let handler = try await openURL(url, ask: ask)
                log(.info, "opened the URL \(from) sent with \(handler)")
            }
            return true
        } catch {
            let failure = self.failure(error)
            log(.warning, "could not open what \(from) sent: \(failure.name): \(failure.message)")
            return false
        }
    }

    /// What a received share is, for its notification, checked where the engine writes
    /// (``ReceivedPlaces``): a file by name, text that is one URL of a scheme some app opens as
    /// that link, other text as text. Nil (logged) when it is not where the engine puts what
    /// devices send, or cannot be opened.
    public func offered(_ received: ReceivedFromDevice) async -> ReceivedNotice.Item? {
        let places = self.places(received)
        do {
            switch received.share {
            case .file(let path):
                let share = received.share
                try await runner.run(for: Self.engineKey) { () throws -> Void in
                    _ = try places().open(share)  // opened, and closed
                }
                return .file(ReceivedNotice.fileName(path))
            case .text:
                if let url = try await url(inText: received.share, places: places), let scheme = try? Scheme(String(url.prefix { $0 != ":" })),
                   opensScheme(scheme.name) {
                    return .link(url)
                }
                return .text
            }
        } catch {
            let failure = self.failure(error)
            log(.warning, "not offering what \(deviceName(received.deviceID)) sent: \(failure.name): \(failure.message)")
            return nil
        }
    }

    /// Where the engine writes what `received`'s device sends: read (its config, the folders
    /// resolved) on a descriptor thread, when called.
    private func places(_ received: ReceivedFromDevice) -> @Sendable () -> ReceivedPlaces {
        let (directories, device, engineDirectory) = (self.directories, received.deviceID, received.engineDirectory)
        return { @Sendable in ReceivedPlaces.kdeconnect(directories, deviceID: device, engineDirectory: engineDirectory) }
    }

    /// The URL received text is, if it is one (``ReceivedShare/url(inDescriptor:)`` on a
    /// descriptor thread, the text opened where the engine writes).
    private func url(inText share: ReceivedShare, places: @escaping @Sendable () -> ReceivedPlaces) async throws -> String? {
        try await runner.run(for: Self.engineKey) { () throws in
            let fd = try places().open(share)
            return ReceivedShare.url(inDescriptor: fd)
        }
    }
}
