import Glibc
import LinuxSystem

/// The sheet's "Files…" without a portal: `zenity --file-selection` (``BuiltinTools/openDialog(title:multiple:environment:)``,
/// `--multiple` when asked) run like a chooser program (its own thread waits, `timeout` bounds
/// it), and the chosen files opened read-only — never waiting on a FIFO (`O_NONBLOCK`): what they
/// are is checked and copied as a provider's answer is (``PickAnswer/take(_:names:types:subject:multiple:database:descriptors:key:keep:)``).
public enum ChosenFiles {
    /// The paths chosen: `NoChooser` when there is no file chooser, `Cancelled` when none was
    /// chosen or it gave no answer in `timeout`.
    public static func ask(title: String?, multiple: Bool, environment: [String: String], timeout: Duration) async throws(ServiceFailure) -> [String] {
        guard let argv = BuiltinTools.openDialog(title: title, multiple: multiple, environment: environment) else {
            throw ServiceFailure(.noChooser, "no file chooser to ask with: run a desktop portal (org.freedesktop.portal.Desktop) or install zenity")
        }
        switch await ChooserProcess.run(argv: argv, environment: environment, input: [], timeout: timeout) {
        case .failedToStart(let error):
            throw ServiceFailure(.noChooser, "the file chooser cannot be started: \(error.reason)")
        case .timedOut:
            throw ServiceFailure(.cancelled, "the file chooser gave no answer in \(timeout.components.seconds) s and was closed")
        case .finished(let status, let output):
            let chosen = BuiltinTools.paths(fromDialogOutput: output)
            guard status == 0, !chosen.isEmpty else { throw ServiceFailure(.cancelled, "no file was chosen") }
            return chosen
        }
    }

    /// `paths` opened read-only (never blocking on a FIFO, never becoming the controlling
    /// terminal), owned by the caller; `Failed` naming the first that cannot be opened (none is
    /// left open then).
    public static func open(_ paths: [String]) throws(ServiceFailure) -> [Int32] {
        var fds: [Int32] = []
        for path in paths {
            do {
                fds.append(try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY).take())
            } catch {
                for opened in fds { _ = FileDescriptor(owning: opened) }
                throw ServiceFailure(.failed, "cannot open \(path): \(error)")
            }
        }
        return fds
    }
}

extension PickAnswer {
    /// Checks a pick's answer — how many (`multiple`), names and types lists that fit — then
    /// checks and copies the documents open as `fds` on a descriptor thread, charged to `key`
    /// (``take(_:names:types:subject:database:)``). `keep` holds `fds` open until the copies are
    /// made (even when the caller stopped waiting for them).
    public static func take(_ fds: [Int32], names: [String], types: [String], subject: PickSubject, multiple: Bool,
                            database: ContentTypeDatabase, descriptors: DescriptorWork, key: String, keep: some Sendable) async throws -> [PickedDocument] {
        try checkCount(fds.count, multiple: multiple)
        try checkLists(names: names, types: types, count: fds.count)
        return try await descriptors.run(for: key) { () throws -> [PickedDocument] in
            withExtendedLifetime(keep) {}
            return try take(fds, names: names, types: types, subject: subject, database: database)
        }
    }
}
