import Foundation
import Glibc
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// The running service keeps the routes the portal applies in step with `[Routes]` (issue 40):
/// ``PortalIntegration/resync(_:)`` through `enable`'s record (a re-sync stopped at any write
/// is finished or undone by the next command, and `disable` gives everything back), the
/// permission-store rules over the bare table (``PortalPermissionRules``), and the follower that
/// notices an edit of the config or the choices on real files (``PortalRouteFollower``). The
/// service with the real store and portal: ServiceTests' PortalAppliesRoutesTests.
@Suite struct PortalRouteSyncTests {
    typealias Routes = PortalPublishedRoutesTests

    @Test func aResyncFollowsThePlanAndAnUnpublishedTypeIsAskedAgain() throws {
        let t = XDGTree(dataDirCount: 1)
        let store = Routes.Store()
        store.entries = Routes.original()
        var integration = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
        #expect(try integration.resync(.init(published: [Routes.notes], alwaysAsk: [])) == nil, "integration is off: nothing is done")
        #expect(store.entries == Routes.original())
        _ = try integration.enable(way: .environment, desktops: "X", files: [], types: ["x-scheme-handler/bank"], routes: [Routes.file, Routes.chat, Routes.notes])
        // Chat's route to another handler, text/x-todo's line removed.
        let outcome = try #require(try integration.resync(.init(published: [Routes.chatOther, Routes.notes], alwaysAsk: ["x-scheme-handler/bank"])))
        #expect(Set(outcome.undone) == ["route text/x-todo org.test.Notes", "route x-scheme-handler/todolist org.test.Chat"], "\(outcome)")
        #expect(outcome.done == ["always-ask text/x-todo", "route x-scheme-handler/todolist org.test.Chat"], "\(outcome)")
        #expect(store.entries["x-scheme-handler/todolist"]?.apps["org.test.Chat"] == ["org.test.Other", "3", "3"])
        #expect(store.entries["text/x-todo"]?.data == .asked, "the portal asks SchemeBridge for the type again")
        #expect(try integration.resync(.init(published: [Routes.chatOther, Routes.notes], alwaysAsk: ["x-scheme-handler/bank"])) == .init(), "nothing new")
        _ = try integration.disable()
        #expect(store.entries == Routes.original())
        #expect(try integration.resync(.init(published: [Routes.notes], alwaysAsk: [])) == nil)
    }

    /// The service killed at any write of a re-sync: whichever command comes next finishes or
    /// undoes it, and `disable` gives every entry back. (Killed after text/x-todo's route was
    /// given back and before its mark, the type is left to the portal's own rules.)
    @Test func aResyncStoppedAtAnyWriteLeavesWhatDisableUndoes() throws {
        for stop in 1...5 {
            for next in ["status", "resync", "disable"] {
                let t = XDGTree(dataDirCount: 1)
                let store = Routes.Store()
                store.entries = Routes.original()
                var integration = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
                _ = try integration.enable(way: .environment, desktops: "X", files: [], types: [], routes: [Routes.file, Routes.chat, Routes.notes])
                store.failOnSet = store.writes + stop
                let plan = PortalRoutePublishing.Plan(published: [Routes.chatOther, Routes.notes], alwaysAsk: [])
                do { _ = try integration.resync(plan) } catch {}
                store.failOnSet = nil
                var later = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
                switch next {
                case "status": #expect(try later.status().changed.isEmpty, "stopped at \(stop)")
                case "resync":
                    _ = try later.resync(plan)
                    #expect(try later.record()?.removing == [], "stopped at \(stop)")
                    #expect(store.entries["x-scheme-handler/todolist"]?.apps["org.test.Chat"] == ["org.test.Other", "3", "3"], "stopped at \(stop)")
                default: break
                }
                _ = try later.disable()
                #expect(store.entries == Routes.original(), "stopped at \(stop), then \(next)")
                #expect(try later.record() == nil)
            }
        }
    }

    /// `desktop-used-apps` as the bus gives it: data kept as the adapter's values.
    final class Table: PortalPermissionTable, @unchecked Sendable {
        var entries: [String: PortalPermissionEntry] = [:]
        var deleted: [String] = []
        func lookup(_ id: String) throws(PortalIntegrationError) -> PortalPermissionEntry? { entries[id] }
        func setData(_ id: String, _ data: PortalPermissionData) throws(PortalIntegrationError) {
            entries[id, default: PortalPermissionEntry(apps: [:], data: .none)].data = data
        }
        func setPermission(_ id: String, app: String, _ strings: [String]) throws(PortalIntegrationError) {
            entries[id, default: PortalPermissionEntry(apps: [:], data: .none)].apps[app] = strings
        }
        func deletePermission(_ id: String, app: String) throws(PortalIntegrationError) { entries[id]?.apps[app] = nil }
        func delete(_ id: String) throws(PortalIntegrationError) {
            entries[id] = nil
            deleted.append(id)
        }
        func keys(_ id: String) -> [String] {
            if case .dictionary(let items)? = entries[id]?.data { return items.map(\.key) }
            return []
        }
    }

    @Test func theRulesKeepEveryOtherKeyAndAppAndRemoveOnlyWhatTheyEmptied() throws {
        let table = Table()
        let rules = PortalPermissionRules(table: table)
        table.entries["text/plain"] = PortalPermissionEntry(apps: ["org.test.A": ["org.test.Edit", "1"]],
                                                            data: .dictionary([PortalPermissionItem(key: "mine", value: .opaque(7))]))
        #expect(try rules.alwaysAsk("text/plain") == .unset)
        try rules.setAlwaysAsk("text/plain", .asked)
        #expect(try rules.alwaysAsk("text/plain") == .asked && table.keys("text/plain") == ["mine", "always-ask"])
        try rules.setAlwaysAsk("text/plain", .unset)
        #expect(table.keys("text/plain") == ["mine"])
        if case .dictionary(let items)? = table.entries["text/plain"]?.data, case .opaque(let v as Int) = items[0].value { #expect(v == 7) } else {
            Issue.record("the other key's value is not kept")
        }
        // An entry made for the mark goes with it; one with an app's permission stays, without data.
        try rules.setAlwaysAsk("x-scheme-handler/new", .asked)
        try rules.setAlwaysAsk("x-scheme-handler/new", .noEntry)
        #expect(table.entries["x-scheme-handler/new"] == nil && table.deleted == ["x-scheme-handler/new"])
        table.entries["image/png"] = PortalPermissionEntry(apps: ["org.test.A": ["org.test.View", "3"]], data: .none)
        try rules.setAlwaysAsk("image/png", .asked)
        try rules.setAlwaysAsk("image/png", .noEntry)
        #expect(try rules.alwaysAsk("image/png") == .noData && table.entries["image/png"]?.apps.count == 1)
        // A permission written, then taken out: the entry made for it goes; another app's stays.
        try rules.setPermission("x-scheme-handler/todo", app: "org.test.A", .strings(["org.test.Todo", "3", "3"]))
        #expect(try rules.permission("x-scheme-handler/todo", app: "org.test.A").appliedHandler == "org.test.Todo")
        try rules.setPermission("x-scheme-handler/todo", app: "org.test.A", .noEntry)
        #expect(table.entries["x-scheme-handler/todo"] == nil)
        try rules.setPermission("image/png", app: "org.test.B", .strings(["org.test.View", "3", "3"]))
        try rules.setPermission("image/png", app: "org.test.B", .noEntry)
        #expect(table.entries["image/png"]?.apps == ["org.test.A": ["org.test.View", "3"]])
        // Data that is no dictionary is never rewritten.
        table.entries["text/html"] = PortalPermissionEntry(apps: [:], data: .other)
        #expect(try rules.alwaysAsk("text/html") == .unsupported)
    }

    /// An edit of the config or of the choices runs the follower's work (the test waits for each
    /// run, with a ceiling); so does a request (the service's config reload).
    @Test func theFollowerRunsOnceTheConfigOrTheChoicesChange() async throws {
        let t = XDGTree(dataDirCount: 1)
        let runs = Atomic<Int>(0)
        let follower = PortalRouteFollower(directories: XDGDirectories(environment: t.environment)) { runs.add(1, ordering: .relaxed) }
        #expect(follower.start())
        defer { follower.stop() }
        func waitFor(_ n: Int) async -> Bool {
            for _ in 0..<6000 where runs.load(ordering: .relaxed) < n { try? await Task.sleep(for: .milliseconds(10)) }
            return runs.load(ordering: .relaxed) >= n
        }
        #expect(await waitFor(1), "the run at start")
        t.write(follower.directory + "/config", "[Routes]\ntodo from org.test.A=org.test.Todo.desktop\n")
        #expect(await waitFor(2), "the config written")
        t.write(follower.directory + "/choices", "")
        #expect(await waitFor(3), "the choices written")
        follower.request()
        #expect(await waitFor(4), "a request")
    }
}
