import DBus
import LinuxSystem
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The pasteboards on the bus: `Pasteboards1` on the main object, one object with `Pasteboard1`
/// per pasteboard, and their signals, sent to the owner's and grantees' connections only.
/// The rules are the core's ``PasteboardStore``; this adapter identifies callers, runs what can
/// block (a caller's descriptor, the disk) on threads of its own, and speaks D-Bus. `Pasteboards1`:
/// `PasteboardsInterface.swift`; `Pasteboard1`: `PasteboardInterface.swift`; decoding `SetItems`:
/// `PasteboardItems.swift`.
final class PasteboardService: Sendable {
    let store: PasteboardStore
    let connection: Connection
    let callers: Callers
    let logger: Logger
    /// Where persistent pasteboards are written and read back: never the loop thread or the
    /// shared pool.
    let io = BlockingThreadPool(name: "sb-pb-disk", timeout: .seconds(300), maximumThreads: 4, maximumWaiting: 256)
    /// Where callers' descriptors that are not sealed memfds are copied (shared with documents).
    let descriptors: DescriptorWork

    init(store: PasteboardStore, connection: Connection, callers: Callers, descriptors: DescriptorWork, logger: Logger) {
        self.store = store
        self.descriptors = descriptors
        self.connection = connection
        self.callers = callers
        self.logger = logger
        store.onRemoved { [weak self] board, why in self?.removed(board, why) }
    }

    static func path(_ id: String) -> ObjectPath { try! ObjectPath(Contract.pasteboardPathPrefix + "/" + id) }

    /// The id in a pasteboard's object path (nil: not one).
    static func id(inPath path: String) -> String? {
        let prefix = Contract.pasteboardPathPrefix + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let id = String(path.dropFirst(prefix.count))
        return PasteboardDisk.isID(id) ? id : nil
    }

    /// Loads the persistent pasteboards and exports their objects (at start).
    func restore() {
        let loaded = store.restore { [logger] in logger.warning("\($0)") }
        // The store's ids are what was loaded; export each one still there.
        for id in store.ids { exportObject(id) }
        if loaded > 0 { logger.info("restored \(loaded) persistent pasteboard\(loaded == 1 ? "" : "s")") }
    }

    func caller(_ sender: String) async -> Caller {
        await callers.caller(sender)
    }

    /// Runs blocking `work` on a disk thread.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(PasteboardError) -> T) async throws -> T {
        let outcome = await io.run { () -> Result<T, PasteboardError> in
            do throws(PasteboardError) { return .success(try work()) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw DBusError(.failed, "the service is busy with other pasteboard data; try again")
        }
    }

    /// The pasteboard named by the `pasteboard` open option (a path or a name), which `caller`
    /// must own (the core's rule, ``PasteboardStore/grantable(_:caller:)``); returns its id.
    func ownedPasteboard(_ reference: String, caller: Caller) throws -> String {
        let named: PasteboardReference = reference.hasPrefix("/") ? .object(id: Self.id(inPath: reference)) : .name(reference)
        return try store.grantable(named, caller: caller)
    }

    // MARK: objects

    func exportObject(_ id: String) {
        try? connection.export([objectDeclaration(id)], at: Self.path(id))
    }

    private func removed(_ board: Pasteboard, _ why: PasteboardStore.Removal) {
        let path = Self.path(board.id)
        for name in board.watchers.keys {
            if let destination = try? BusName(name) { try? connection.emit(PasteboardDeleted(), path: path, to: destination) }
        }
        connection.unexport(path)
        switch why {
        case .expired: logger.info("pasteboard \(board.id) expired")
        case .deleted: logger.info("pasteboard \(board.id) deleted")
        case .evicted: logger.notice("pasteboard \(board.id) of \(board.ownerApp ?? "an unidentified caller") evicted: the service was at MaxPasteboards or MaxBytes, and its owner held the most")
        }
    }

    func changed(_ board: Pasteboard) {
        let path = Self.path(board.id)
        for name in board.watchers.keys {
            if let destination = try? BusName(name) { try? connection.emit(PasteboardChanged(changeCount: board.changeCount), path: path, to: destination) }
        }
    }
}
