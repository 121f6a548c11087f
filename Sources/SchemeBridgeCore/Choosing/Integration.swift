import Glibc
import Synchronization

/// SchemeBridge as the desktop's handler of URL schemes (`schemebridge integrate`): our own
/// entry becomes the default of each routed scheme in `$XDG_CONFIG_HOME/mimeapps.list`, so
/// browsers, `xdg-open`, `gio open` and the portal hand those links to us; what was written is
/// recorded (``IntegrationState``, `$XDG_CONFIG_HOME/schemebridge/integration`) and `disable`
/// undoes exactly that. The file edits run one at a time on a thread of their own, through the
/// same writer as `SetDefaultHandler` (atomic, symlinks followed, redone on top of a concurrent
/// write by another program), each behind an intent (``IntegrationIntent``): a SIGKILL or a
/// full disk between the list and the record never leaves our lines without a record.
public final class Integration: Sendable {
    /// The `mimeapps.list` edited.
    public let listPath: String
    /// The record of what was edited.
    public let statePath: String
    /// SchemeBridge's own desktop id.
    public let ownID: String
    private let writer = SerialWriter<Result<Outcome, FileSystemError>>(name: "integration")
    /// Each job's own key: jobs are never merged (they differ).
    private let jobs = Atomic<Int>(0)

    /// What an enable or disable did.
    public struct Outcome: Sendable, Equatable {
        /// The schemes routed (enable) or given back (disable).
        public var schemes: [String] = []
        /// Schemes whose line had been changed by someone else since (disable: left alone).
        public var changed: [String] = []
    }

    public init(directories: XDGDirectories, ownID: String) {
        self.listPath = directories.userMimeappsList
        self.statePath = XDGDirectories.join(XDGDirectories.join(directories.configHome, "schemebridge"), "integration")
        self.ownID = ownID
    }

    /// The record as it is on disk (none: nothing routed).
    public func state() throws(FileSystemError) -> IntegrationState {
        guard FileSystem.info(statePath).kind != .missing else { return IntegrationState() }
        do { return try IntegrationState.decode(FileSystem.readFile(statePath), path: statePath) } catch {
            throw FileSystemError(path: statePath, code: EINVAL, message: "cannot be read (\(error)); remove it to start over")
        }
    }

    /// The recorded schemes whose line is still as we wrote it, and those changed since. An edit
    /// that was stopped half-way (``IntegrationIntent``) counts as the next reconcile will
    /// leave it; nothing is written (see ``status()``).
    public func check() throws(FileSystemError) -> (state: IntegrationState, routed: [String], changed: [String]) {
        var state = try self.state()
        let list = try readList()
        if let intent = pendingIntent(), list != intent.before { state = intent.record }
        let document = KeyFileDocument(bytes: list ?? [])
        var routed: [String] = [], changed: [String] = []
        for (scheme, edit) in state.edits.sorted(by: { $0.key < $1.key }) {
            if IntegrationEdit.lineIndex(scheme, edit, in: document) != nil { routed.append(scheme) } else { changed.append(scheme) }
        }
        return (state, routed, changed)
    }

    /// ``check()`` once an edit stopped half-way has been finished or undone.
    public func status() async throws(FileSystemError) -> (state: IntegrationState, routed: [String], changed: [String]) {
        _ = try await onWriter { [self] () throws(FileSystemError) in
            try reconcile()
            return Outcome()
        }
        return try check()
    }

    /// Routes `schemes` (those not routed yet). `all`: integration is on — the caller passes
    /// every non-reserved scheme with a handler, and ``follow(_:)`` adds new ones from now on;
    /// schemes named explicitly are no longer left out.
    public func enable(_ schemes: [String], all: Bool) async throws(FileSystemError) -> Outcome {
        try await onWriter { [self] () throws(FileSystemError) in
            try reconcile()
            var state = try self.state()
            if all { state.enabled = true } else { state.leftOut.subtract(schemes) }
            return try commit(state) { document, s in
                var routed: [String] = []
                for scheme in schemes where s.edits[scheme] == nil {
                    if IntegrationEdit.route(scheme, to: ownID, in: &document, state: &s) { routed.append(scheme) }
                }
                return Outcome(schemes: routed)
            }
        }
    }

    /// While integration is on: routes those of `available()` (every non-reserved scheme with a
    /// handler now; asked only when integration is on) that are neither routed nor left out.
    /// Returns the schemes added.
    public func follow(_ available: @escaping @Sendable () -> [String]) async throws(FileSystemError) -> [String] {
        try await onWriter { [self] () throws(FileSystemError) in
            try reconcile()
            let state = try self.state()
            guard state.enabled else { return Outcome() }
            let new = available().filter { state.edits[$0] == nil && !state.leftOut.contains($0) }
            guard !new.isEmpty else { return Outcome() }
            return try commit(state) { document, s in
                let outcome = Outcome(schemes: new.filter { IntegrationEdit.route($0, to: ownID, in: &document, state: &s) })
                // A scheme whose line someone else already points at us is not asked about again.
                s.leftOut.formUnion(new.filter { !outcome.schemes.contains($0) })
                return outcome
            }
        }.schemes
    }

    /// After a default was set for a routed `scheme` (`SetDefaultHandler`, `schemebridge
    /// default`): the default's writer replaced our line with `desktopID`'s, so links went to it
    /// straight. Ours goes first again (`ours;new`), and the record now gives back the new line
    /// — the user's new choice survives `disable`. Nothing is done when the scheme is not routed,
    /// or its line is still ours, or it names something else first (another program's edit).
    /// Returns whether the scheme was routed again.
    public func keepRouted(_ scheme: String, newDefault id: DesktopID) async throws(FileSystemError) -> Bool {
        let desktopID = id.fileName
        return try await onWriter { [self] () throws(FileSystemError) in
            try reconcile()
            let state = try self.state()
            guard let edit = state.edits[scheme] else { return Outcome() }
            return try commit(state) { document, s in
                guard IntegrationEdit.lineIndex(scheme, edit, in: document) == nil,
                      IntegrationEdit.defaults(scheme, in: document).first == desktopID else { return Outcome() }
                s.edits.removeValue(forKey: scheme)
                return IntegrationEdit.route(scheme, to: ownID, in: &document, state: &s) ? Outcome(schemes: [scheme]) : Outcome()
            }
        }.schemes == [scheme]
    }

    /// Gives `schemes` back (nil: every routed scheme, and integration is off): each line we
    /// wrote goes back to what it replaced, or away; a line someone changed since is left alone.
    /// When nothing is left, the group, blank line and line feed we added go too, and a file we
    /// created is removed — the file is then byte for byte what it was.
    public func disable(_ schemes: [String]?) async throws(FileSystemError) -> Outcome {
        try await onWriter { [self] () throws(FileSystemError) in
            try reconcile()
            let state = try self.state()
            let targets = schemes ?? Array(state.edits.keys)
            return try commit(state) { document, s in
                var out = Outcome()
                for scheme in targets.sorted() {
                    guard let e = s.edits.removeValue(forKey: scheme) else { continue }
                    if IntegrationEdit.unroute(scheme, e, in: &document) { out.schemes.append(scheme) } else { out.changed.append(scheme) }
                }
                IntegrationEdit.tidy(&document, state: &s)
                if schemes == nil {
                    s.enabled = false
                    s.leftOut = []
                } else if s.enabled {
                    s.leftOut.formUnion(targets)
                }
                return out
            }
        }
    }

    // MARK: the files

    /// `integration.pending` beside the record: the edit under way (``IntegrationIntent``).
    public var intentPath: String { statePath + ".pending" }

    /// Applies `change` to `state` and to `mimeapps.list`, and records the result, in the order
    /// that never leaves our lines in the list without a record: the intent (list before and
    /// after, the new record), then the list, then the record, then the intent goes. When the
    /// intent cannot be written the list is not touched; when the record cannot be written the
    /// list is put back. `change` may run more than once (see ``MimeAppsEditor``), each time
    /// from `state` on the newest list.
    private func commit(_ state: IntegrationState,
                        _ change: (inout KeyFileDocument, inout IntegrationState) -> Outcome) throws(FileSystemError) -> Outcome {
        let before = try readList()
        /// `change` on `bytes`: the outcome, the record, and the list's new bytes (nil: remove it).
        func apply(_ bytes: [UInt8]?) -> (Outcome, IntegrationState, [UInt8]?) {
            var document = KeyFileDocument(bytes: bytes ?? [])
            var s = state
            let outcome = change(&document, &s)
            if bytes == nil && state.edits.isEmpty && !document.bytes.isEmpty { s.createdFile = true }
            var after: [UInt8]? = document.bytes == (bytes ?? []) ? bytes : document.bytes
            if s.createdFile && s.edits.isEmpty {
                // The file we created, empty again, goes; either way there is nothing left to undo.
                if document.bytes.isEmpty { after = nil }
                s.createdFile = false
            }
            return (outcome, s, after)
        }
        var (outcome, record, after) = apply(before)
        if after == before {
            try save(record)
            return outcome
        }
        try writeIntent(IntegrationIntent(before: before, after: after, record: record))
        do {
            if after == nil {
                unlink(try FileSystem.resolveWriteTarget(listPath))
            } else {
                try MimeAppsEditor.edit(listPath: listPath) { document in
                    let base: [UInt8]? = document.bytes.isEmpty && FileSystem.info(listPath).kind == .missing ? nil : document.bytes
                    (outcome, record, after) = apply(base)
                    document = KeyFileDocument(bytes: after ?? [])
                }
            }
        } catch {
            unlink(intentPath)
            throw error
        }
        do { try save(record) } catch {
            if (try? putBack(before, ifStill: after)) == true { unlink(intentPath) }
            throw error
        }
        unlink(intentPath)
        return outcome
    }

    /// Finishes or undoes an edit that was stopped half-way (an intent left behind): nothing to
    /// do when the list is as it was before; otherwise its record is written, and when that
    /// fails the list is put back. An intent that cannot be read is not ours to act on: removed.
    private func reconcile() throws(FileSystemError) {
        guard FileSystem.info(intentPath).kind != .missing else { return }
        guard let intent = pendingIntent() else {
            unlink(intentPath)
            return
        }
        let now = try readList()
        if now != intent.before {
            if intent.after == nil, now == [] { unlink(try FileSystem.resolveWriteTarget(listPath)) }
            do { try save(intent.record) } catch {
                if try putBack(intent.before, ifStill: intent.after) { unlink(intentPath) }
                throw error
            }
        }
        unlink(intentPath)
    }

    /// The intent left behind, if one is there and reads as one.
    private func pendingIntent() -> IntegrationIntent? {
        guard FileSystem.info(intentPath).kind == .file, let bytes = try? FileSystem.readFile(intentPath) else { return nil }
        return IntegrationIntent.decode(bytes, path: intentPath)
    }

    private func writeIntent(_ intent: IntegrationIntent) throws(FileSystemError) {
        try FileSystem.makeDirectories(FileSystem.dirname(intentPath))
        try FileSystem.writeAtomically(intent.encoded(), to: intentPath, defaultMode: 0o600)
    }

    /// Puts `before` back as the list when it is still `written` (nobody else wrote since);
    /// false when it is not.
    private func putBack(_ before: [UInt8]?, ifStill written: [UInt8]?) throws(FileSystemError) -> Bool {
        guard try readList() == written else { return false }
        if let before {
            try MimeAppsEditor.edit(listPath: listPath) { $0 = KeyFileDocument(bytes: before) }
        } else {
            unlink(try FileSystem.resolveWriteTarget(listPath))
        }
        return true
    }

    /// The list's bytes; nil when there is none.
    private func readList() throws(FileSystemError) -> [UInt8]? {
        FileSystem.info(listPath).kind == .missing ? nil : try FileSystem.readFile(listPath)
    }

    /// Writes the record (removes it when it holds nothing).
    private func save(_ state: IntegrationState) throws(FileSystemError) {
        if state == IntegrationState() {
            unlink(statePath)
            return
        }
        try FileSystem.makeDirectories(FileSystem.dirname(statePath))
        try FileSystem.writeAtomically(state.encoded(), to: statePath)
    }

    /// Runs `work` on the integration's thread.
    private func onWriter(_ work: @escaping @Sendable () throws(FileSystemError) -> Outcome) async throws(FileSystemError) -> Outcome {
        let key = String(jobs.add(1, ordering: .relaxed).newValue)
        return try await writer.run(key: key) { Result { () throws(FileSystemError) in try work() } }.get()
    }
}
