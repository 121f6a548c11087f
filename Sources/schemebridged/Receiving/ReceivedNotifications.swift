import DBus
import Glibc
import Logging
import SchemeBridgeContract
import SchemeBridgeCore
import SchemeBridgeDevices

/// What devices send, one desktop notification per transfer (the core's ``ReceivedTransfers``
/// groups a burst of `shareReceived` from one device and caps what a device can have waiting;
/// ``ReceivedNotice`` is the notification's text), shown through `org.freedesktop.Notifications`
/// (``DesktopNotifications``) with "Open", "Show in folder", "Not from this device" and "Dismiss".
///
/// - `OpenReceived=ask` (the default): nothing opens until the user chooses "Open": one item
///   opens with the default app for it (a link with its scheme's), several open their folder.
/// - `OpenReceived=default`: the transfer opens once when it closes (the same one launch), and
///   the notification says so (no "Open").
/// - `OpenReceived=never`: left where the engine put it, logged, no notification.
/// - No notification server on the bus (or one without actions): the transfer is done as
///   before this service had notifications — its one item asked about or opened per
///   `OpenReceived`, several items' folder likewise — and that is logged.
///
/// Actions are believed only from the server that showed the notification, once each: a
/// transfer is settled by its first answer (or its notification closing).
actor ReceivedNotifications {
    let receiving: Receiving
    let notifications: DesktopNotifications
    let fileManager: FileManager1
    let logger: Logger
    /// `$XDG_CONFIG_HOME/schemebridge/blocked-devices` (``BlockedDevices``).
    let blockedPath: String
    private var transfers = ReceivedTransfers()
    /// The offered items of each transfer, as the engine announced them.
    private var items: [UInt64: [ReceivedFromDevice]] = [:]
    /// Closed transfers whose notification is shown, by the notification.
    private var shown: [DesktopNotifications.Shown: Waiting] = [:]
    private var timer: Task<Void, Never>?
    private var events: Task<Void, Never>?
    private let started = ContinuousClock.now

    /// A transfer waiting for its notification's answer.
    struct Waiting {
        var transfer: ReceivedTransfer
        var items: [ReceivedFromDevice]
        var deviceName: String
        var opened: Bool
    }

    init(receiving: Receiving, connection: Connection) {
        self.receiving = receiving
        notifications = DesktopNotifications(connection: connection)
        fileManager = FileManager1(connection: connection)
        logger = receiving.logger
        blockedPath = BlockedDevices.defaultPath(directories: receiving.devices.directories)
    }

    /// Follows the notification server's answers.
    func start() async {
        do {
            let stream = try await notifications.events()
            events = Task { [weak self] in
                for await event in stream { await self?.handle(event) }
            }
        } catch {
            logger.warning("cannot follow org.freedesktop.Notifications (received shares are asked about as without a notification server): \(error)")
        }
    }

    func stop() {
        timer?.cancel()
        events?.cancel()
    }

    private var now: Int64 {
        let d = ContinuousClock.now - started
        return d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// One share a device sent: grouped into its device's transfer, or kept and logged.
    func receive(_ received: ReceivedFromDevice) async {
        guard receiving.policy.current.openReceived != .never else {
            await receiving.openReceived(received)  // logs that it is left
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
            logger.notice("kept \(name) from \(receiving.deviceName(received.deviceID)) where KDE Connect put it, not offered: a transfer offers at most \(transfers.limits.maximumOffered) items")
        case .overflow:
            logger.notice("kept \(name) from \(receiving.deviceName(received.deviceID)) where KDE Connect put it, not offered: the device has \(transfers.limits.maximumPending) transfers waiting for an answer")
        case .blocked:
            logger.notice("kept \(name) from \(receiving.deviceName(received.deviceID)) (\(received.deviceID)) where KDE Connect put it: not from this device (schemebridge devices --allow \(received.deviceID) undoes it)")
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
    private var presenting: [(ReceivedTransfer, [ReceivedFromDevice])] = []
    private var presenter: Task<Void, Never>?
    private func nextToPresent() -> (ReceivedTransfer, [ReceivedFromDevice])? {
        guard !presenting.isEmpty else { presenter = nil; return nil }
        return presenting.removeFirst()
    }

    private func show(_ transfer: ReceivedTransfer, offered: [ReceivedFromDevice]) async {
        let device = receiving.deviceName(transfer.deviceID)
        logger.info("transfer \(transfer.id) from \(device) closed: \(offered.count) item(s) offered, \(transfer.kept) more kept where KDE Connect put them")
        guard !BlockedDevices.load(blockedPath).contains(transfer.deviceID) else {
            transfers.settle(transfer.id)
            logger.notice("kept \(offered.count + transfer.kept) item(s) from \(device) where KDE Connect put them: not from this device")
            return
        }
        // Only what is where the engine writes is named or opened.
        var checked: [(ReceivedFromDevice, ReceivedNotice.Item)] = []
        for item in offered {
            if let shown = await receiving.receivedItem(item) { checked.append((item, shown)) }
        }
        guard !checked.isEmpty else {
            transfers.settle(transfer.id)
            return
        }
        let mode = receiving.policy.current.openReceived
        let kept = checked.map(\.0)
        var waiting = Waiting(transfer: transfer, items: kept, deviceName: device, opened: false)
        let server: DesktopNotifications.ServerInformation
        let capabilities: [String]
        do throws(DBusError) {
            server = try await notifications.serverInformation()
            capabilities = try await notifications.capabilities()
            guard capabilities.contains("actions") else { throw DBusError(.failed, "\(server.name) shows no actions") }
        } catch {
            logger.notice("no notification server with actions on the bus (\(error.name.rawValue): \(error.message)): what \(device) sent is \(mode == .ask ? "asked about" : "opened") as without notifications")
            transfers.settle(transfer.id)
            await open(kept, ask: mode == .ask, device: device)
            return
        }
        if mode == .default {
            waiting.opened = await open(kept, ask: false, device: device)
        }
        let notice = ReceivedNotice(deviceName: device, items: checked.map(\.1), kept: transfer.kept, opened: waiting.opened,
                                    markup: capabilities.contains("body-markup"))
        let notification = DesktopNotifications.Notification(
            appName: "SchemeBridge", appIcon: receiving.deviceKind(transfer.deviceID).icon, summary: notice.summary, body: notice.body, actions: notice.actionList,
            hints: ["category": .variant(.string("transfer.complete")), "urgency": .variant(.byte(1))])
        do throws(DBusError) {
            let id = try await notifications.notify(notification)
            shown[id] = waiting
            let more = transfer.kept > 0 ? "; \(transfer.kept) more kept, not offered" : ""
            logger.info("notified \(server.name) (\(id.owner)) of \(kept.count) item(s) from \(device) as notification \(id.id)\(more)")
        } catch {
            logger.warning("the notification server did not show what \(device) sent (\(error.name.rawValue): \(error.message)); it stays where KDE Connect put it")
            transfers.settle(transfer.id)
        }
    }

    /// Opens a transfer's items as one: its one item (``Receiving/openReceived(_:mode:)``), or the
    /// folder holding several; `ask`: with the chooser ("Open in…"). Returns whether it started.
    @discardableResult
    private func open(_ items: [ReceivedFromDevice], ask: Bool, device: String) async -> Bool {
        if items.count == 1, let item = items.first {
            return await receiving.openReceived(item, mode: ask ? .ask : .default)
        }
        guard let folder = Self.folder(of: items) else { return false }
        do throws(DBusError) {
            let results = try await receiving.openReceivedFolder(folder, ask: ask)
            logger.info("opened the folder of the \(items.count) items \(device) sent with \(results.handler)")
            return true
        } catch {
            logger.warning("could not open the folder of what \(device) sent: \(error.name.rawValue): \(error.message)")
            return false
        }
    }

    /// The folder of the first file among `items` (else of the first item).
    static func folder(of items: [ReceivedFromDevice]) -> String? {
        let first = items.first { if case .file = $0.share { return true } else { return false } } ?? items.first
        return first.map { item in
            let path = item.share.path
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
            return String(path[..<slash])
        }
    }

    /// An answer from the notification server: believed only from the server that showed it,
    /// for a transfer still waiting (its first answer settles it).
    private func handle(_ event: DesktopNotifications.Event) async {
        let key: DesktopNotifications.Shown
        var action: ReceivedNotice.Action? = nil
        switch event {
        case .actionInvoked(let id, let name, let sender):
            key = .init(id: id, owner: sender)
            action = ReceivedNotice.Action(rawValue: name)
            if action == nil, shown[key] != nil { logger.notice("notification \(id): unknown action '\(name.prefix(64))' ignored") }
            if action == nil { return }
        case .closed(let id, _, let sender):
            key = .init(id: id, owner: sender)
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
        try? await notifications.close(key.id)
    }

    private func showInFolder(_ waiting: Waiting) async {
        let files = waiting.items.compactMap { item -> String? in
            if case .file(let path) = item.share { return PercentEncoding.fileURL(path: path) } else { return nil }
        }
        if !files.isEmpty, await fileManager.isAvailable() {
            do throws(DBusError) {
                try await fileManager.showItems(files)
                logger.info("showed the \(files.count) file(s) \(waiting.deviceName) sent in the file manager")
                return
            } catch {
                logger.notice("org.freedesktop.FileManager1 did not show what \(waiting.deviceName) sent (\(error.name.rawValue)); opening its folder")
            }
        }
        guard let folder = Self.folder(of: waiting.items) else { return }
        do throws(DBusError) {
            let results = try await receiving.openReceivedFolder(folder, ask: false)
            logger.info("opened the folder of what \(waiting.deviceName) sent with \(results.handler)")
        } catch {
            logger.warning("could not open the folder of what \(waiting.deviceName) sent: \(error.name.rawValue): \(error.message)")
        }
    }

    /// "Not from this device": remembered in ``BlockedDevices``; its open transfer and its other
    /// waiting notifications go (nothing of it is offered or opened again).
    private func block(_ deviceID: String, name: String) async {
        var list = BlockedDevices.load(blockedPath)
        list.add(deviceID, name: name)
        do throws(FileSystemError) {
            try list.save(blockedPath)
            logger.notice("not from this device: what \(name) (\(deviceID)) sends is no longer offered or opened")
        } catch {
            logger.warning("could not remember 'not from this device' for \(name): \(error)")
        }
        if let dropped = transfers.drop(deviceID) {
            items[dropped.id] = nil
            logger.notice("kept \(dropped.offered.count + dropped.kept) item(s) from \(name) where KDE Connect put them: not from this device")
        }
        for (key, other) in shown where other.transfer.deviceID == deviceID {
            shown[key] = nil
            transfers.settle(other.transfer.id)
            try? await notifications.close(key.id)
        }
    }
}

extension ReceivedShare {
    /// The path the engine named.
    var path: String {
        switch self {
        case .file(let p), .text(let p): p
        }
    }
}
