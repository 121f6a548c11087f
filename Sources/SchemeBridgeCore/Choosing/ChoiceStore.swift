import Glibc
import Synchronization

/// A remembered choice: `caller` opens `subject` (a scheme or a content type) with
/// `desktopID`, without being asked.
public struct Choice: Sendable, Equatable, Hashable {
    public var caller: CallerID
    public var subject: String
    /// The handler (or share target, or pick provider) chosen.
    public var desktopID: ChooserTargetID

    public init(caller: CallerID, subject: String, desktopID: ChooserTargetID) {
        self.caller = caller
        self.subject = subject
        self.desktopID = desktopID
    }
}

/// The remembered choices ("always" in a chooser), per caller app and scheme or type, kept in
/// `$XDG_CONFIG_HOME/schemebridge/choices` — the user's own file, never `mimeapps.list` (those
/// are every app's defaults):
///
/// ```ini
/// [org.example.Calendar]
/// todolist=org.example.Todo.desktop
/// ```
///
/// Lookups are in memory (one lock; the file is checked for outside edits at most every 200 ms,
/// with one `stat`); writes go through a temporary file (mode 0600), `fsync` and `rename`, on a
/// thread of their own, never on the threads that answer calls.
public final class ChoiceStore: Sendable {
    /// The file; nil keeps choices in memory only (tests, a broker without a service).
    public let path: String?
    private let warn: @Sendable (String) -> Void
    private struct State {
        var choices: [String: [String: String]] = [:]
        var signature: FileSignature?
        var checkedAt: Int64 = 0
    }
    private let state = Mutex(State())
    private let writer = SerialWriter<Result<Void, FileSystemError>>(name: "choices")

    /// The most choices kept (a chooser answer each; past it "always" is not remembered).
    public static let maximumCount = 10_000

    /// Loads `path` (a missing file is no choices; a damaged one is ignored with a warning).
    public init(path: String?, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.path = path
        self.warn = warn
        reload(force: true)
    }

    /// `$XDG_CONFIG_HOME/schemebridge/choices`.
    public static func defaultPath(directories: XDGDirectories) -> String {
        XDGDirectories.join(XDGDirectories.join(directories.configHome, "schemebridge"), "choices")
    }

    /// The handler `caller` chose for `subject` with "always", if any.
    public func choice(caller: CallerID, subject: String) -> ChooserTargetID? {
        reload(force: false)
        return state.withLock { $0.choices[caller.text]?[subject] }.map { ChooserTargetID($0) }
    }

    /// Whether `caller` has any remembered choice (one lock, no copy: the open path asks first).
    public func hasChoices(caller: CallerID) -> Bool {
        reload(force: false)
        return state.withLock { $0.choices[caller.text] != nil }
    }

    /// Every remembered choice, by caller then subject (a group naming no caller identity,
    /// written by hand, is left out).
    public var all: [Choice] {
        reload(force: false)
        return state.withLock { s in
            s.choices.keys.sorted().flatMap { text -> [Choice] in
                guard let caller = CallerID(text) else { return [] }
                return s.choices[text]!.sorted { $0.key < $1.key }.map { Choice(caller: caller, subject: $0.key, desktopID: ChooserTargetID($0.value)) }
            }
        }
    }

    /// Whether a choice of `caller` can be written down: an identity that makes a group name.
    public static func canRemember(caller id: CallerID?) -> Bool { id.map { makesGroupName($0.text) } ?? false }

    /// Whether `caller` can name a group of the file (what ``canRemember(caller:)`` checks, and
    /// what a group read from the file must pass).
    static func makesGroupName(_ caller: String) -> Bool {
        guard !caller.isEmpty, caller.utf8.count <= 1024 else { return false }
        return !caller.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }
            && caller.first != " " && caller.last != " "
    }

    /// Remembers that `choice.caller` opens `choice.subject` with `choice.desktopID`, and writes
    /// the file. Throws when the caller cannot be written down, past ``maximumCount``, or when the
    /// file cannot be written (the choice is then kept in memory until the service stops).
    public func remember(_ choice: Choice) async throws(FileSystemError) {
        guard Self.canRemember(caller: choice.caller), ChoiceStore.isValidTarget(choice.desktopID.text, subject: choice.subject),
              ChoiceSubject.normalized(choice.subject) == choice.subject else {
            throw FileSystemError(path: path ?? "choices", code: EINVAL, message: "cannot remember a choice for '\(choice.caller)'")
        }
        let caller = choice.caller.text
        let full = state.withLock { s -> Bool in
            if s.choices[caller]?[choice.subject] == nil && s.choices.values.reduce(0, { $0 + $1.count }) >= Self.maximumCount { return true }
            s.choices[caller, default: [:]][choice.subject] = choice.desktopID.text
            return false
        }
        if full {
            throw FileSystemError(path: path ?? "choices", code: ENOSPC, message: "already \(Self.maximumCount) remembered choices; forget some first")
        }
        try await save()
    }

    /// Forgets what `caller` chose for `subject`; false when nothing was remembered.
    public func forget(caller id: CallerID, subject: String) async throws(FileSystemError) -> Bool {
        reload(force: false)
        let caller = id.text
        let removed = state.withLock { s -> Bool in
            guard s.choices[caller]?.removeValue(forKey: subject) != nil else { return false }
            if s.choices[caller]?.isEmpty == true { s.choices[caller] = nil }
            return true
        }
        if removed { try await save() }
        return removed
    }

    // MARK: the file

    /// Writes the choices as they are when the write runs (writes queued together are one).
    private func save() async throws(FileSystemError) {
        guard let path else { return }
        let result = await writer.run(key: "save") { [self] in
            Result { () throws(FileSystemError) in
                let bytes = state.withLock { Self.encode($0.choices) }
                try FileSystem.makeDirectories(FileSystem.dirname(path))
                let temp = try FileSystem.writeTemporary(bytes, beside: path, defaultMode: 0o600)
                if chmod(temp.path, 0o600) != 0 || rename(temp.path, path) != 0 {
                    let e = FileSystemError.errno(path, "cannot replace")
                    unlink(temp.path)
                    throw e
                }
                FileSystem.syncDirectory(of: path)
                let written = FileSystem.info(path).signature
                state.withLock { $0.signature = written }
            }
        }
        try result.get()
    }

    /// Re-reads the file when it changed (checked at most every 200 ms unless `force`).
    private func reload(force: Bool) {
        guard let path else { return }
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let now = Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        let due = state.withLock { s -> Bool in
            if !force && now - s.checkedAt < 200 { return false }
            s.checkedAt = now
            return true
        }
        guard due else { return }
        let info = FileSystem.info(path)
        let signature: FileSignature? = info.kind == .missing ? nil : info.signature
        if !force && state.withLock({ $0.signature == signature }) { return }
        var choices: [String: [String: String]] = [:]
        if signature != nil {
            do {
                choices = try Self.decode(FileSystem.readFile(path), path: path)
            } catch {
                warn("\(error); remembered choices not read")
                state.withLock { $0.signature = signature }
                return
            }
        }
        state.withLock {
            $0.choices = choices
            $0.signature = signature
        }
    }

    static func encode(_ choices: [String: [String: String]]) -> [UInt8] {
        var text = "# SchemeBridge's remembered choices (\"always\" in a chooser): [caller app id], then scheme-or-type=desktop id.\n"
            + "# Written by schemebridged; list and forget them with `schemebridge choices`.\n"
        for caller in choices.keys.sorted() {
            text += "\n[\(caller)]\n"
            for (subject, id) in choices[caller]!.sorted(by: { $0.key < $1.key }) { text += "\(subject)=\(KeyFileValue.escape(id))\n" }
        }
        return Array(text.utf8)
    }

    static func decode(_ bytes: [UInt8], path: String) throws(KeyFileError) -> [String: [String: String]] {
        let file = try KeyFile(bytes: bytes, path: path)
        var choices: [String: [String: String]] = [:]
        for group in file.groups where makesGroupName(group.name) {
            for e in group.entries where e.locale == nil {
                let id = KeyFileValue.unescape(e.rawValue)
                if let subject = ChoiceSubject.normalized(e.key), ChoiceStore.isValidTarget(id, subject: subject) { choices[group.name, default: [:]][subject] = id }
            }
        }
        return choices
    }
}

extension ChoiceStore {
    /// Whether `id` may be remembered (or routed) for `subject`: a desktop id, or for shares
    /// (``ShareTargetID/choiceSubject``) a share target id.
    public static func isValidTarget(_ id: String, subject: String) -> Bool {
        subject == ShareTargetID.choiceSubject ? ShareTargetID.isValid(id) : DesktopID.isValid(id)
    }
}
