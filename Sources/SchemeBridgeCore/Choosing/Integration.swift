import Glibc
import Synchronization

/// SchemeBridge as the desktop's handler of URL schemes (`schemebridge integrate`): our own
/// entry becomes the default of each routed scheme in `$XDG_CONFIG_HOME/mimeapps.list`, so
/// browsers, `xdg-open`, `gio open` and the portal hand those links to us; what was written is
/// recorded (``IntegrationState``, `$XDG_CONFIG_HOME/schemebridge/integration`) and `disable`
/// undoes exactly that. The file edits run one at a time on a thread of their own, through the
/// same writer as `SetDefaultHandler` (atomic, symlinks followed, redone on top of a concurrent
/// write by another program).
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

    /// The recorded schemes whose line is still as we wrote it, and those changed since.
    public func check() throws(FileSystemError) -> (state: IntegrationState, routed: [String], changed: [String]) {
        let state = try self.state()
        let document = KeyFileDocument(bytes: FileSystem.info(listPath).kind == .missing ? [] : try FileSystem.readFile(listPath))
        var routed: [String] = [], changed: [String] = []
        for (scheme, edit) in state.edits.sorted(by: { $0.key < $1.key }) {
            if IntegrationEdit.lineIndex(scheme, edit, in: document) != nil { routed.append(scheme) } else { changed.append(scheme) }
        }
        return (state, routed, changed)
    }

    /// Routes `schemes` through SchemeBridge (those not routed yet). `all`: integration is on —
    /// the caller passes every non-reserved scheme with a handler, and ``follow(_:)`` adds new
    /// ones from now on; schemes named explicitly are no longer left out.
    public func enable(_ schemes: [String], all: Bool) async throws(FileSystemError) -> Outcome {
        try await onWriter { [self] () throws(FileSystemError) in
            var state = try self.state()
            if all { state.enabled = true } else { state.leftOut.subtract(schemes) }
            let outcome = try edit(&state) { document, s in
                var routed: [String] = []
                for scheme in schemes where s.edits[scheme] == nil {
                    if IntegrationEdit.route(scheme, to: ownID, in: &document, state: &s) { routed.append(scheme) }
                }
                return Outcome(schemes: routed)
            }
            try save(state)
            return outcome
        }
    }

    /// While integration is on: routes those of `available()` (every non-reserved scheme with a
    /// handler now; asked only when integration is on) that are neither routed nor left out.
    /// Returns the schemes added.
    public func follow(_ available: @escaping @Sendable () -> [String]) async throws(FileSystemError) -> [String] {
        try await onWriter { [self] () throws(FileSystemError) in
            var state = try self.state()
            guard state.enabled else { return Outcome() }
            let new = available().filter { state.edits[$0] == nil && !state.leftOut.contains($0) }
            guard !new.isEmpty else { return Outcome() }
            let outcome = try edit(&state) { document, s in
                Outcome(schemes: new.filter { IntegrationEdit.route($0, to: ownID, in: &document, state: &s) })
            }
            // A scheme whose line someone else already points at us is not asked about again.
            state.leftOut.formUnion(new.filter { !outcome.schemes.contains($0) })
            try save(state)
            return outcome
        }.schemes
    }

    /// Gives `schemes` back (nil: every routed scheme, and integration is off): each line we
    /// wrote goes back to what it replaced, or away; a line someone changed since is left alone.
    /// When nothing is left, the group, blank line and line feed we added go too, and a file we
    /// created is removed — the file is then byte for byte what it was.
    public func disable(_ schemes: [String]?) async throws(FileSystemError) -> Outcome {
        try await onWriter { [self] () throws(FileSystemError) in
            var state = try self.state()
            let targets = schemes ?? Array(state.edits.keys)
            let outcome = try edit(&state) { document, s in
                var out = Outcome()
                for scheme in targets.sorted() {
                    guard let e = s.edits.removeValue(forKey: scheme) else { continue }
                    if IntegrationEdit.unroute(scheme, e, in: &document) { out.schemes.append(scheme) } else { out.changed.append(scheme) }
                }
                IntegrationEdit.tidy(&document, state: &s)
                return out
            }
            if schemes == nil {
                state.enabled = false
                state.leftOut = []
            } else if state.enabled {
                state.leftOut.formUnion(targets)
            }
            if state.createdFile && state.edits.isEmpty {
                if FileSystem.info(listPath).kind == .file, (try? FileSystem.readFile(listPath))?.isEmpty == true { unlink(listPath) }
                state.createdFile = false
            }
            try save(state)
            return outcome
        }
    }

    // MARK: the files

    /// Applies `change` to `mimeapps.list` (written only when it changes the bytes) and keeps
    /// the state it recorded; `change` may run more than once (see ``MimeAppsEditor``).
    private func edit(_ state: inout IntegrationState,
                      _ change: (inout KeyFileDocument, inout IntegrationState) -> Outcome) throws(FileSystemError) -> Outcome {
        let exists = FileSystem.info(listPath).kind != .missing
        let before = state
        var after = state, outcome = Outcome()
        var probe = KeyFileDocument(bytes: exists ? try FileSystem.readFile(listPath) : [])
        let original = probe.bytes
        _ = change(&probe, &after)
        if probe.bytes == original {
            state = after
            return Outcome()
        }
        try MimeAppsEditor.edit(listPath: listPath) { document in
            after = before
            outcome = change(&document, &after)
        }
        if !exists && before.edits.isEmpty { after.createdFile = true }
        state = after
        return outcome
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
