import DBus
import Logging
import SchemeBridgeContract
import SchemeBridgeCore

/// The pasteboards on the bus: `Pasteboards1` on the main object, one object with `Pasteboard1`
/// per pasteboard, and their signals, sent to the owner's and grantees' connections only.
/// The rules are the core's ``PasteboardStore``, each call's work the core's ``PasteboardCalls``;
/// this adapter identifies callers and speaks D-Bus. `Pasteboards1`: `PasteboardsInterface.swift`;
/// `Pasteboard1`: `PasteboardInterface.swift`; decoding `SetItems`: `PasteboardItems.swift`.
final class PasteboardService: Sendable {
    let calls: PasteboardCalls
    let connection: Connection
    let callers: Callers
    let logger: Logger

    init(store: PasteboardStore, connection: Connection, callers: Callers, descriptors: DescriptorWork, logger: Logger) {
        (self.calls, self.connection, self.callers, self.logger) = (PasteboardCalls(store: store, descriptors: descriptors), connection, callers, logger)
        store.onRemoved { [weak self] board, why in self?.removed(board, why) }
    }

    var store: PasteboardStore { calls.store }

    static func path(_ id: String) -> ObjectPath { try! ObjectPath(Contract.pasteboardPathPrefix + "/" + id) }

    /// The id in a pasteboard's object path (nil: not one).
    static func id(inPath path: String) -> String? { PasteboardReference.id(inPath: path, prefix: Contract.pasteboardPathPrefix) }

    /// Loads the persistent pasteboards and exports their objects (at start).
    func restore() {
        let loaded = store.restore { [logger] in logger.warning("\($0)") }
        // The store's ids are what was loaded; export each one still there.
        for id in store.ids { exportObject(id) }
        if loaded > 0 { logger.info("restored \(loaded) persistent pasteboard\(loaded == 1 ? "" : "s")") }
    }

    func caller(_ sender: String) async -> Caller { await callers.caller(sender) }

    /// Runs blocking `work` on a disk thread (``PasteboardCalls/blocking(_:)``).
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws(PasteboardError) -> T) async throws -> T { try await calls.blocking(work) }

    /// The pasteboard named by the `pasteboard` open option (a path or a name), which `caller`
    /// must own (the core's rule, ``PasteboardStore/grantable(_:caller:)``); returns its id.
    func ownedPasteboard(_ reference: String, caller: Caller) throws -> String {
        try store.grantable(PasteboardReference(reference, pathPrefix: Contract.pasteboardPathPrefix), caller: caller)
    }

    // MARK: objects

    func exportObject(_ id: String) {
        try? connection.export([objectDeclaration(id)], at: Self.path(id))
    }

    private func removed(_ board: Pasteboard, _ why: PasteboardStore.Removal) {
        emit(PasteboardDeleted(), about: board)
        connection.unexport(Self.path(board.id))
        let (notice, line) = why.logLine(board)
        if notice { logger.notice("\(line)") } else { logger.info("\(line)") }
    }

    func changed(_ board: Pasteboard) { emit(PasteboardChanged(changeCount: board.changeCount), about: board) }

    /// Sends `signal` on `board`'s object to its owner's and grantees' connections only.
    private func emit(_ signal: some ContractSignal, about board: Pasteboard) {
        for name in board.watchers.keys {
            if let destination = try? BusName(name) { try? connection.emit(signal, path: Self.path(board.id), to: destination) }
        }
    }
}

extension DescriptorWork: DescriptorRunner {
    public func failure(of error: any Error) -> ServiceFailure {
        if let failure = error as? ServiceFailure { return failure }
        let error = DBusError.from(error)
        let name = error.name.rawValue.hasPrefix(Contract.errorPrefix) ? String(error.name.rawValue.dropFirst(Contract.errorPrefix.count)) : error.name.rawValue
        return ServiceFailure(ServiceFailure.Kind(rawValue: name) ?? .failed, error.message)
    }
}
