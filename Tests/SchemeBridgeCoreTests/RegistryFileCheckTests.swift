import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// A launch is planned from the chosen entry's file as it is now (`RegistryFileCheck.swift`),
/// whatever the registry last read: here without a watcher, so it has not seen the edits.
@Suite struct RegistryFileCheckTests {
    func argv(_ plan: LaunchPlan) -> [String] {
        if case .spawn(let commands) = plan.action { return commands.first?.argv ?? [] }
        return []
    }

    @Test func aChangedUserEntryIsReadAloneAndAChangedSystemEntryMakesAFullRead() throws {
        let tree = XDGTree()
        tree.entry(0, "notes.desktop", schemes: ["notes"], exec: "/bin/echo old %u")
        tree.entry(1, "web.desktop", schemes: ["https"], exec: "/bin/echo web %u")
        let warnings = Mutex<[String]>([])
        let registry = Registry(environment: tree.environment, watch: false, index: .disabled) { w in
            warnings.withLock { $0.append(w.message) }
        }
        let router = URLRouter(registry: registry, ownDesktopIDs: [])

        // The user's own entry changed: its file alone is read again, nothing is logged.
        tree.entry(0, "notes.desktop", schemes: ["notes"], exec: "/bin/echo new %u")
        #expect(argv(try router.plan("notes:x", searchPath: [])) == ["/bin/echo", "new", "notes:x"])
        #expect(warnings.withLock { $0 }.isEmpty)
        #expect(registry.entry(id: "notes.desktop")?.exec == "/bin/echo new %u")

        // A system entry changed: every file is read again, and that is logged once.
        tree.entry(1, "web.desktop", schemes: ["https"], exec: "/bin/echo web2 %u")
        #expect(argv(try router.plan("https://example.org/", searchPath: [])) == ["/bin/echo", "web2", "https://example.org/"])
        let logged = warnings.withLock { $0 }
        #expect(logged.count == 1 && logged.first?.contains("web.desktop is not what its file says") == true, "\(logged)")

        // An entry whose file is gone is not launched from its record.
        try FileManager.default.removeItem(atPath: tree.apps(1) + "/web.desktop")
        #expect(throws: RouteError.noHandler(scheme: "https")) { try router.plan("https://example.org/", searchPath: []) }
    }

    /// A file read before a launch is read again only once it changed (`VerifiedFiles`): an
    /// unchanged file costs a `stat`; a rewrite of the same size with its old modification time
    /// still changes its change time and is read; and whether the handler is eligible (its
    /// program) is judged at every launch, not remembered with the file.
    @Test func aVerifiedFileIsReadAgainOnceItChangesAndItsProgramIsJudgedEachTime() async throws {
        let tree = XDGTree()
        tree.mkdir(tree.bin)
        let program = tree.bin + "/handler"
        tree.write(program, "#!/bin/sh\n")
        chmod(program, 0o755)
        let path = tree.entry(1, "web.desktop", schemes: ["webx"], exec: program + " one %u", extra: "TryExec=" + program)
        let registry = Registry(environment: tree.environment, watch: false, index: .disabled)
        let router = URLRouter(registry: registry, ownDesktopIDs: [])
        // Older than the timestamps' margin, so that its read is remembered (a file changed just
        // before its read never is).
        await XDGTree.outlastTimestampMargin()
        #expect(argv(try router.plan("webx:a", searchPath: [])) == [program, "one", "webx:a"])
        var old = stat()
        stat(path, &old)
        #expect(registry.verifiedFiles.entry(at: path, signature: FileSignature(old))?.exec == program + " one %u", "the read is remembered")
        #expect(argv(try router.plan("webx:b", searchPath: [])) == [program, "one", "webx:b"])

        // The same size, the modification time put back: the change time still moved.
        tree.entry(1, "web.desktop", schemes: ["webx"], exec: program + " two %u", extra: "TryExec=" + program)
        var times = [old.st_atim, old.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)
        #expect(argv(try router.plan("webx:c", searchPath: [])) == [program, "two", "webx:c"])

        // Its TryExec program goes: the remembered file does not keep the handler eligible.
        await XDGTree.outlastTimestampMargin()
        #expect(argv(try router.plan("webx:d", searchPath: [])) == [program, "two", "webx:d"])
        try FileManager.default.removeItem(atPath: program)
        #expect(throws: RouteError.noHandler(scheme: "webx")) { try router.plan("webx:e", searchPath: []) }
    }
}
