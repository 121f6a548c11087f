/// What ``ReceivedNotifier`` asks of the session: the notification server, the file manager,
/// opening what was received, and the log. The daemon implements it over
/// `org.freedesktop.Notifications`, `org.freedesktop.FileManager1` and its opening path.
public protocol ReceivedNotifierPort: Sendable {
    /// A shown notification, as the server that showed it names it (its answers are believed
    /// only from that server).
    associatedtype Shown: Hashable & Sendable

    /// `[Devices] OpenReceived` now.
    var openReceived: OpenReceived { get }
    /// The device's name in the engine (sanitised; a placeholder when it is not listed now).
    func deviceName(_ id: String) -> String
    /// The icon of the device's kind.
    func deviceIcon(_ id: String) -> String
    /// Opens `received` as ``ReceivedAction`` says under `mode` (nil: ``openReceived``);
    /// whether something was started. Failures are the port's to log.
    func open(_ received: ReceivedFromDevice, mode: OpenReceived?) async -> Bool
    /// Opens `folder` with the default app for folders (or the one picked, `ask`); the handler's id.
    func openFolder(_ folder: String, ask: Bool) async throws(ReceivedNotifierFailure) -> String
    /// What `received` is for its notification, checked where the engine writes; nil (logged)
    /// when it is not there or cannot be opened.
    func offered(_ received: ReceivedFromDevice) async -> ReceivedNotice.Item?
    /// The notification server's name, when one with actions is on the bus, and its capabilities.
    func notificationServer() async throws(ReceivedNotifierFailure) -> (name: String, capabilities: [String])
    /// Shows `notice` with `icon`.
    func notify(_ notice: ReceivedNotice, icon: String) async throws(ReceivedNotifierFailure) -> Shown
    /// The shown notification's id and owner, for the log.
    func describe(_ shown: Shown) -> (id: UInt32, owner: String)
    /// Closes a shown notification (nothing when it is gone).
    func close(_ shown: Shown) async
    /// Whether a file manager is on the bus to show files with.
    func fileManagerAvailable() async -> Bool
    /// Shows `fileURLs` in the file manager.
    func showInFileManager(_ fileURLs: [String]) async throws(ReceivedNotifierFailure)
    /// Logs `message` at `level`.
    func log(_ level: ReceivedNotifierLogLevel, _ message: String)
}

/// A failure the port reports: a D-Bus error's name and message, as the log names it.
public struct ReceivedNotifierFailure: Error, Sendable, Equatable {
    /// The error's name (`org.freedesktop.DBus.Error.ServiceUnknown`).
    public var name: String
    /// Its message.
    public var message: String

    /// A failure named `name`.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// How loud a line of ``ReceivedNotifier``'s log is.
public typealias ReceivedNotifierLogLevel = ServiceLogLevel

/// What devices send, one desktop notification per transfer (``ReceivedTransfers`` groups a
/// burst of shares from one device and caps what a device can have waiting; ``ReceivedNotice``
/// is the notification's text) with "Open", "Show in folder", "Not from this device" and
/// "Dismiss".
///
/// - `OpenReceived=ask` (the default): nothing opens until the user chooses "Open": one item
///   opens with the default app for it (a link with its scheme's), several open their folder.
/// - `OpenReceived=default`: the transfer opens once when it closes (the same one launch), and
///   the notification says so (no "Open").
/// - `OpenReceived=never`: left where the engine put it, logged, no notification.
/// - No notification server (or one without actions): the transfer is done as before the
///   service had notifications — its one item asked about or opened per `OpenReceived`,
///   several items' folder likewise — and that is logged.
///
/// Actions are believed only from the server that showed the notification, once each: a
/// transfer is settled by its first answer (or its notification closing).
public actor ReceivedNotifier<Port: ReceivedNotifierPort> {
    /// An answer from the notification server.
    public enum Event: Sendable {
        /// Action `name` was invoked on `shown`.
        case actionInvoked(Port.Shown, name: String)
        /// `shown` was closed.
        case closed(Port.Shown)
    }

    let port: Port
    /// `$XDG_CONFIG_HOME/schemebridge/blocked-devices` (``BlockedDevices``).
    let blockedPath: String
    private var transfers: ReceivedTransfers
    /// The offered items of each transfer, as the engine announced them.
    private var items: [UInt64: [ReceivedFromDevice]] = [:]
    /// Closed transfers whose notification is shown, by the notification.
    private var shown: [Port.Shown: Waiting] = [:]
    private var timer: Task<Void, Never>?
    private var presenting: [(ReceivedTransfer, [ReceivedFromDevice])] = []
    private var presenter: Task<Void, Never>?
    private let started = ContinuousClock.now

    /// A transfer waiting for its notification's answer.
    struct Waiting {
        var transfer: ReceivedTransfer
        var items: [ReceivedFromDevice]
        var deviceName: String
        var opened: Bool
    }

    /// A notifier over `port`, remembering blocked devices at `blockedPath`.
    public init(port: Port, blockedPath: String, limits: ReceivedTransferLimits = ReceivedTransferLimits()) {
        self.port = port
        self.blockedPath = blockedPath
        self.transfers = ReceivedTransfers(limits: limits)
    }

    /// Stops the pending deadline.
    public func stop() {
        timer?.cancel()
    }

    private var now: Int64 {
        let d = ContinuousClock.now - started
        return d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// One share a device sent: grouped into its device's transfer, or kept and logged.
    public func receive(_ received: ReceivedFromDevice) async {
        guard port.openReceived != .never else {
            _ = await port.open(received, mode: nil)  // logs that it is left
            return
        }
        let blocked = BlockedDevices.load(blockedPath).contains(received.deviceID)
        let time = now
        for transfer in transfers.close(at: time) { present(transfer) }  // a transfer past its deadline is not joined
        let name = ReceivedNotice.fileName(received.share.path)
        switch transfers.receive(received.share, from: received.deviceID, at: time, blocked: blocked) {
        case .started(let id):
            items[id] = [received]
        case .joined(let id, offered: true):
            items[id, default: []].append(received)
        case .joined(_, offered: false):
            port.log(.notice, "kept \(name) from \(port.deviceName(received.deviceID)) where KDE Connect put it, not offered: a transfer offers at most \(transfers.limits.maximumOffered) items")
        case .overflow:
            port.log(.notice, "kept \(name) from \(port.deviceName(received.deviceID)) where KDE Connect put it, not offered: the device has \(transfers.limits.maximumPending) transfers waiting for an answer")
        case .blocked:
            port.log(.notice, "kept \(name) from \(port.deviceName(received.deviceID)) (\(received.deviceID)) where KDE Connect put it: not from this device (schemebridge devices --allow \(received.deviceID) undoes it)")
        }
        scheduleTimer()
    }

    /// Runs ``closeDue()`` at the next deadline, unless a timer is set.
    private func scheduleTimer() {
        guard timer == nil, let deadline = transfers.nextDeadline else { return }
        let wait = max(0, deadline - now)
        timer = Task { [weak self] in
            do { try await Task.sleep(for: .milliseconds(wait)) } catch { return }
            await self?.closeDue()
        }
    }

    private func closeDue() {
        timer = nil
        for transfer in transfers.close(at: now) { present(transfer) }
        scheduleTimer()
    }

    /// Shows the notification for a closed transfer (or does what happens without one); one at a time.
    private func present(_ transfer: ReceivedTransfer) {
        let offered = items.removeValue(forKey: transfer.id) ?? []
        presenting.append((transfer, offered))
        guard presenter == nil else { return }
        presenter = Task { [weak self] in
            while let next = await self?.nextToPresent() {
                await self?.show(next.0, offered: next.1)
            }
        }
    }

    private func nextToPresent() -> (ReceivedTransfer, [ReceivedFromDevice])? {
        guard !presenting.isEmpty else { presenter = nil; return nil }
        return presenting.removeFirst()
    }

    private func show(_ transfer: ReceivedTransfer, offered: [ReceivedFromDevice]) async {
        let device = port.deviceName(transfer.deviceID)
        port.log(.info, "transfer \(transfer.id) from \(device) closed: \(offered.count) item(s) offered, \(transfer.kept) more kept where KDE Connect put them")
        guard !BlockedDevices.load(blockedPath).contains(transfer.deviceID) else {
            transfers.settle(transfer.id)
            port.log(.notice, "kept \(offered.count + transfer.kept) item(s) from \(device) where KDE Connect put them: not from this device")
            return
        }
        // Only what is where the engine writes is named or opened.
        var checked: [(ReceivedFromDevice, ReceivedNotice.Item)] = []
        for item in offered {
            if let shown = await port.offered(item) { checked.append((item, shown)) }
        }
        guard !checked.isEmpty else {
            transfers.settle(transfer.id)
            return
        }
        let mode = port.openReceived
        let kept = checked.map(\.0)
        var waiting = Waiting(transfer: transfer, items: kept, deviceName: device, opened: false)
        let server: (name: String, capabilities: [String])
        do throws(ReceivedNotifierFailure) {
            server = try await port.notificationServer()
        } catch {
            port.log(.notice, "no notification server with actions on the bus (\(error.name): \(error.message)): what \(device) sent is \(mode == .ask ? "asked about" : "opened") as without notifications")
            transfers.settle(transfer.id)
            await open(kept, ask: mode == .ask, device: device)
            return
        }
        if mode == .default {
            waiting.opened = await open(kept, ask: false, device: device)
        }
        let notice = ReceivedNotice(deviceName: device, items: checked.map(\.1), kept: transfer.kept, opened: waiting.opened,
                                    markup: server.capabilities.contains("body-markup"))
        do throws(ReceivedNotifierFailure) {
            let id = try await port.notify(notice, icon: port.deviceIcon(transfer.deviceID))
            shown[id] = waiting
            let more = transfer.kept > 0 ? "; \(transfer.kept) more kept, not offered" : ""
            let described = port.describe(id)
            port.log(.info, "notified \(server.name) (\(described.owner)) of \(kept.count) item(s) from \(device) as notification \(described.id)\(more)")
        } catch {
            port.log(.warning, "the notification server did not show what \(device) sent (\(error.name): \(error.message)); it stays where KDE Connect put it")
            transfers.settle(transfer.id)
        }
    }

    /// Opens a transfer's items as one: its one item, or the folder holding several; `ask`:
    /// with the chooser ("Open in…"). Returns whether it started.
    @discardableResult
    private func open(_ items: [ReceivedFromDevice], ask: Bool, device: String) async -> Bool {
        if items.count == 1, let item = items.first {
            return await port.open(item, mode: ask ? .ask : .default)
        }
        guard let folder = ReceivedFromDevice.folder(of: items) else { return false }
        do throws(ReceivedNotifierFailure) {
            let handler = try await port.openFolder(folder, ask: ask)
            port.log(.info, "opened the folder of the \(items.count) items \(device) sent with \(handler)")
            return true
        } catch {
            port.log(.warning, "could not open the folder of what \(device) sent: \(error.name): \(error.message)")
            return false
        }
    }

    /// An answer from the notification server: believed only from the server that showed it,
    /// for a transfer still waiting (its first answer settles it).
    public func handle(_ event: Event) async {
        let key: Port.Shown
        var action: ReceivedNotice.Action? = nil
        switch event {
        case .actionInvoked(let id, let name):
            key = id
            action = ReceivedNotice.Action(rawValue: name)
            if action == nil, shown[key] != nil { port.log(.notice, "notification \(port.describe(id).id): unknown action '\(name.prefix(64))' ignored") }
            if action == nil { return }
        case .closed(let id):
            key = id
        }
        guard let waiting = shown.removeValue(forKey: key) else { return }
        transfers.settle(waiting.transfer.id)
        switch action {
        case nil, .dismiss?:
            return
        case .open?:
            if !waiting.opened { await open(waiting.items, ask: false, device: waiting.deviceName) }
        case .showInFolder?:
            await showInFolder(waiting)
        case .notFromThisDevice?:
            await block(waiting.transfer.deviceID, name: waiting.deviceName)
        }
        await port.close(key)
    }

    private func showInFolder(_ waiting: Waiting) async {
        let files = waiting.items.compactMap { item -> String? in
            if case .file(let path) = item.share { return PercentEncoding.fileURL(path: path) } else { return nil }
        }
        if !files.isEmpty, await port.fileManagerAvailable() {
            do throws(ReceivedNotifierFailure) {
                try await port.showInFileManager(files)
                port.log(.info, "showed the \(files.count) file(s) \(waiting.deviceName) sent in the file manager")
                return
            } catch {
                port.log(.notice, "org.freedesktop.FileManager1 did not show what \(waiting.deviceName) sent (\(error.name)); opening its folder")
            }
        }
        guard let folder = ReceivedFromDevice.folder(of: waiting.items) else { return }
        do throws(ReceivedNotifierFailure) {
            let handler = try await port.openFolder(folder, ask: false)
            port.log(.info, "opened the folder of what \(waiting.deviceName) sent with \(handler)")
        } catch {
            port.log(.warning, "could not open the folder of what \(waiting.deviceName) sent: \(error.name): \(error.message)")
        }
    }

    /// "Not from this device": remembered in ``BlockedDevices``; its open transfer and its other
    /// waiting notifications go (nothing of it is offered or opened again).
    private func block(_ deviceID: String, name: String) async {
        var list = BlockedDevices.load(blockedPath)
        list.add(deviceID, name: name)
        do throws(FileSystemError) {
            try list.save(blockedPath)
            port.log(.notice, "not from this device: what \(name) (\(deviceID)) sends is no longer offered or opened")
        } catch {
            port.log(.warning, "could not remember 'not from this device' for \(name): \(error)")
        }
        if let dropped = transfers.drop(deviceID) {
            items[dropped.id] = nil
            port.log(.notice, "kept \(dropped.offered.count + dropped.kept) item(s) from \(name) where KDE Connect put them: not from this device")
        }
        for (key, other) in shown where other.transfer.deviceID == deviceID {
            shown[key] = nil
            transfers.settle(other.transfer.id)
            await port.close(key)
        }
    }
}
