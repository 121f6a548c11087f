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
}
