import Foundation
import Testing
@testable import SchemeBridgeCore

/// Routes the portal applies itself (issue 40): which `[Routes]` lines are published as the
/// caller's "chosen three times" permission in `desktop-used-apps` (``PortalRoutePublishing``),
/// how the portal reads such a permission, and ``PortalIntegration`` writing, following and
/// undoing them — every entry as before, also after the portal rewrote the count, and after a
/// command stopped at any write. The store here is a table in memory modelled on
/// xdg-permission-store (its D-Bus side with the real store and portal: ServiceTests'
/// PortalIntegrateTests).
@Suite struct PortalPublishedRoutesTests {
    /// `desktop-used-apps` in memory, as xdg-permission-store keeps it: per type an entry with its
    /// data and its app permissions. `failOnSet`: the Nth write fails (a command stopped there).
    final class Store: PortalPermissionStore {
        struct Entry: Equatable {
            var data: PortalAskState = .noData
            var apps: [String: [String]] = [:]
        }
        var entries: [String: Entry] = [:]
        var writes = 0
        var failOnSet: Int?

        private func write() throws(PortalIntegrationError) {
            writes += 1
            if writes == failOnSet { throw PortalIntegrationError("stopped at write \(writes)") }
        }
        func alwaysAsk(_ type: String) throws(PortalIntegrationError) -> PortalAskState { entries[type]?.data ?? .noEntry }
        func setAlwaysAsk(_ type: String, _ state: PortalAskState) throws(PortalIntegrationError) {
            try write()
            switch state {
            case .noEntry, .noData:
                guard var entry = entries[type] else { return }
                entry.data = .noData
                entries[type] = state == .noEntry && entry.apps.isEmpty ? nil : entry
            default:
                entries[type, default: Entry()].data = state
            }
        }
        func permission(_ type: String, app: String) throws(PortalIntegrationError) -> PortalAppPermission {
            guard let entry = entries[type] else { return .noEntry }
            return entry.apps[app].map { .strings($0) } ?? PortalAppPermission.none
        }
        func setPermission(_ type: String, app: String, _ permission: PortalAppPermission) throws(PortalIntegrationError) {
            try write()
            switch permission {
            case .strings(let s):
                entries[type, default: Entry()].apps[app] = s
            case .none, .noEntry:
                guard var entry = entries[type] else { return }
                entry.apps[app] = nil
                entries[type] = permission == .noEntry && entry.apps.isEmpty && entry.data == .noData ? nil : entry
            }
        }
    }

    /// Installed entries: a handler for `todolist`, `wild` and `text/x-todo`; one with a launch
    /// image for `splashy`; a mail client; one that admits only another caller; another todolist handler.
    static func tree() -> XDGTree {
        let t = XDGTree(dataDirCount: 1)
        t.entry(0, "org.test.Todo.desktop", schemes: ["todolist", "wild", "bank"], mimeTypes: ["text/x-todo"])
        t.entry(0, "org.test.Splash.desktop", schemes: ["splashy"], extra: "X-LaunchImageDir=\(t.root)/images")
        t.writeBytes(t.root + "/images/Default-splashy.png", [0x89, 0x50, 0x4E, 0x47])
        t.entry(0, "org.test.Mail.desktop", schemes: ["mailto"])
        t.entry(0, "org.test.Only.desktop", schemes: ["onlyme"], extra: "X-SchemeBridge-AllowedCallers=org.test.Other")
        t.entry(0, "org.test.Other.desktop", schemes: ["todolist"])
        return t
    }

    static func plan(_ t: XDGTree, routes: [(String, String, String)], choices: [Choice] = [], routedSchemes: [String] = []) -> PortalRoutePublishing.Plan {
        let registry = t.registry()
        let images = LaunchImageIndex()
        return PortalRoutePublishing.plan(routes: routes.map { Route(subject: $0.0, callerPattern: $0.1, desktopID: ChooserTargetID($0.2)) }, choices: choices, routedSchemes: routedSchemes,
                                          entry: { registry.entry(id: $0) },
                                          showsLaunchImage: { images.image(for: $0, scheme: $1, scale: 1) != nil })
    }

    /// Published: exact app ids whose handler (the remembered choice first) handles the type,
    /// admits the caller and shows no launch image. Always-ask: a type the portal opens with its
    /// default, a pattern, a launch image, a handler that does not admit the caller or is not
    /// installed — and every type with no route, as before.
    @Test func onlyRoutesThePortalWouldApplyAsSchemeBridgeDoesArePublished() {
        let t = Self.tree()
        let plan = Self.plan(t, routes: [
            ("todolist", "org.test.Notes", "org.test.Todo.desktop"),
            ("todolist", "org.test.Chat", "org.test.Todo.desktop"),
            ("todolist", "org.test.Notes", "org.test.Other.desktop"),   // a later line for the same app never decides
            ("text/x-todo", "org.test.Notes", "org.test.Todo.desktop"),
            ("splashy", "org.test.Notes", "org.test.Splash.desktop"),
            ("mailto", "org.test.Notes", "org.test.Mail.desktop"),
            ("onlyme", "org.test.Notes", "org.test.Only.desktop"),
            ("wild", "org.test.*", "org.test.Todo.desktop"),
            ("missing", "org.test.Notes", "org.test.Gone.desktop"),
        ], choices: [Choice(caller: "org.test.Chat", subject: "todolist", desktopID: "org.test.Other.desktop")], routedSchemes: ["plain"])
        #expect(plan.published == [
            PortalPublishedRoute(type: "text/x-todo", app: "org.test.Notes", handler: "org.test.Todo"),
            PortalPublishedRoute(type: "x-scheme-handler/todolist", app: "org.test.Chat", handler: "org.test.Other"),
            PortalPublishedRoute(type: "x-scheme-handler/todolist", app: "org.test.Notes", handler: "org.test.Todo"),
        ])
        #expect(plan.alwaysAsk == ["x-scheme-handler/mailto", "x-scheme-handler/missing", "x-scheme-handler/onlyme", "x-scheme-handler/plain",
                                   "x-scheme-handler/splashy", "x-scheme-handler/wild"])
        #expect(plan.published[0].permission == ["org.test.Todo", "3", "3"])
        // With launch images off (no entry shows one), the route with an image is published too.
        let registry = t.registry()
        let off = PortalRoutePublishing.plan(routes: [Route(subject: "splashy", callerPattern: "org.test.Notes", desktopID: "org.test.Splash.desktop")], choices: [],
                                             routedSchemes: [], entry: { registry.entry(id: $0) }, showsLaunchImage: { _, _ in false })
        #expect(off.published == [PortalPublishedRoute(type: "x-scheme-handler/splashy", app: "org.test.Notes", handler: "org.test.Splash")])
        #expect(off.alwaysAsk.isEmpty)
        // One unpublishable line keeps the whole type always-ask, with nothing published for it.
        let mixed = Self.plan(t, routes: [("todolist", "org.test.Notes", "org.test.Todo.desktop"), ("todolist", "org.*", "org.test.Todo.desktop")])
        #expect(mixed.published.isEmpty && mixed.alwaysAsk == ["x-scheme-handler/todolist"])
        #expect(PortalRoutePublishing.portalUsesDefault("inode/directory") && PortalRoutePublishing.portalUsesDefault("x-scheme-handler/webcal"))
        #expect(!PortalRoutePublishing.portalUsesDefault("text/html"))
    }

    /// The portal's own reading (`get_latest_choice_info`, `count >= threshold`, `atoi`).
    @Test func thePortalLaunchesAHandlerChosenEnoughTimes() {
        #expect(PortalAppPermission.strings(["h", "3", "3"]).appliedHandler == "h")
        #expect(PortalAppPermission.strings(["h", "2", "3"]).appliedHandler == nil)
        #expect(PortalAppPermission.strings(["h", "3"]).appliedHandler == "h", "no threshold: 3")
        #expect(PortalAppPermission.strings(["h", "3", " "]).appliedHandler == "h", "a blank threshold: 3")
        #expect(PortalAppPermission.strings(["h", "1", "1"]).appliedHandler == "h")
        #expect(PortalAppPermission.strings(["h", "7x", "5"]).appliedHandler == "h", "atoi reads the leading digits")
        #expect(PortalAppPermission.strings(["h", "9", "2147483647"]).appliedHandler == nil, "G_MAXINT: always ask")
        #expect(PortalAppPermission.strings(["h"]).appliedHandler == nil)
        #expect(PortalAppPermission.none.appliedHandler == nil && PortalAppPermission.noEntry.appliedHandler == nil)
    }

    static let notes = PortalPublishedRoute(type: "x-scheme-handler/todolist", app: "org.test.Notes", handler: "org.test.Todo")
    static let chat = PortalPublishedRoute(type: "x-scheme-handler/todolist", app: "org.test.Chat", handler: "org.test.Todo")
    static let chatOther = PortalPublishedRoute(type: "x-scheme-handler/todolist", app: "org.test.Chat", handler: "org.test.Other")
    static let file = PortalPublishedRoute(type: "text/x-todo", app: "org.test.Notes", handler: "org.test.Todo")
    static let bank = PortalPublishedRoute(type: "x-scheme-handler/bank", app: "org.test.Notes", handler: "org.test.Todo")

    /// The store before: Chat chose Other once for todolist; a third app's permission; an
    /// always-ask type of the user's own; nothing for text/x-todo or bank.
    static func original() -> [String: Store.Entry] {
        ["x-scheme-handler/todolist": Store.Entry(data: .noData, apps: ["org.test.Chat": ["org.test.Other", "1", "3"], "org.test.Third": ["org.test.Todo", "2", "3"]]),
         "x-scheme-handler/mine": Store.Entry(data: .set(true), apps: [:])]
    }

    /// Enable publishes, a re-run follows `[Routes]` (a route gone, one to another handler, a
    /// type that was always-ask now published), and disable gives every entry back as it was —
    /// also the one whose count the portal rewrote since.
    @Test func publishedRoutesFollowTheRoutesAndGoBackExactly() throws {
        let t = XDGTree(dataDirCount: 1)
        let store = Store()
        store.entries = Self.original()
        var integration = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
        var outcome = try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: [], types: ["x-scheme-handler/bank", "x-scheme-handler/mine"],
                                             routes: [Self.file, Self.chat, Self.notes])
        #expect(outcome.done == ["always-ask x-scheme-handler/bank", "route text/x-todo org.test.Notes", "route x-scheme-handler/todolist org.test.Chat",
                                 "route x-scheme-handler/todolist org.test.Notes"], "\(outcome)")
        #expect(store.entries["x-scheme-handler/todolist"]?.apps == ["org.test.Chat": ["org.test.Todo", "3", "3"], "org.test.Notes": ["org.test.Todo", "3", "3"],
                                                                     "org.test.Third": ["org.test.Todo", "2", "3"]])
        #expect(store.entries["text/x-todo"] == Store.Entry(data: .noData, apps: ["org.test.Notes": ["org.test.Todo", "3", "3"]]))
        #expect(store.entries["x-scheme-handler/bank"]?.data == .asked)
        #expect(try integration.status().changed.isEmpty)
        #expect(try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: [], types: ["x-scheme-handler/bank"],
                                       routes: [Self.file, Self.chat, Self.notes]) == .init(), "nothing new")

        // The routes change: text/x-todo's goes, Chat's goes to Other, bank gets a route.
        outcome = try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: [], types: [], routes: [Self.bank, Self.chatOther, Self.notes])
        #expect(Set(outcome.undone) == ["route text/x-todo org.test.Notes", "route x-scheme-handler/todolist org.test.Chat", "always-ask x-scheme-handler/bank"], "\(outcome)")
        #expect(outcome.done == ["route x-scheme-handler/bank org.test.Notes", "route x-scheme-handler/todolist org.test.Chat"], "\(outcome)")
        #expect(store.entries["text/x-todo"] == nil, "the entry made for the route is gone")
        #expect(store.entries["x-scheme-handler/todolist"]?.apps["org.test.Chat"] == ["org.test.Other", "3", "3"])
        #expect(store.entries["x-scheme-handler/bank"] == Store.Entry(data: .noData, apps: ["org.test.Notes": ["org.test.Todo", "3", "3"]]))
        let record = try #require(try integration.record())
        #expect(PortalIntegrationRecord.decode(record.encoded()) == record)

        // The portal rewrote Notes' count since (same handler): still ours to give back.
        store.entries["x-scheme-handler/todolist"]?.apps["org.test.Notes"] = ["org.test.Todo", "5", "5"]
        #expect(try integration.status().changed.isEmpty)
        // A type always-ask by the user's own doing is left so, and said.
        let mine = PortalPublishedRoute(type: "x-scheme-handler/mine", app: "org.test.Notes", handler: "org.test.Todo")
        outcome = try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: [], types: [], routes: [Self.bank, Self.chatOther, Self.notes, mine])
        #expect(outcome.changed == ["always-ask x-scheme-handler/mine"], "\(outcome)")
        _ = try integration.disable()
        #expect(store.entries == Self.original())
        #expect(try integration.record() == nil)
    }

    /// A user's choice made since (another handler for a published app) is left alone, reported.
    @Test func aPermissionChangedSinceIsLeftAlone() throws {
        let t = XDGTree(dataDirCount: 1)
        let store = Store()
        var integration = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
        _ = try integration.enable(way: .environment, desktops: "X", files: [], types: [], routes: [Self.notes])
        store.entries[Self.notes.type]?.apps[Self.notes.app] = ["org.test.Other", "1", "3"]
        #expect(try integration.status().changed == ["route x-scheme-handler/todolist org.test.Notes"])
        let back = try integration.disable()
        #expect(back.changed == ["route x-scheme-handler/todolist org.test.Notes"])
        #expect(store.entries[Self.notes.type]?.apps[Self.notes.app] == ["org.test.Other", "1", "3"])
    }

    /// A re-run stopped at any write (removing or adding): the next command finishes it, and
    /// disable gives everything back.
    @Test func aReRunStoppedAtAnyWriteIsFinishedOrUndone() throws {
        for stop in 1...6 {
            for next in ["status", "enable", "disable"] {
                let t = XDGTree(dataDirCount: 1)
                let store = Store()
                store.entries = Self.original()
                var integration = PortalIntegration(directories: XDGDirectories(environment: t.environment), store: store)
                _ = try integration.enable(way: .environment, desktops: "X", files: [], types: ["x-scheme-handler/bank"], routes: [Self.file, Self.chat, Self.notes])
                store.failOnSet = store.writes + stop
                let routes = [Self.bank, Self.chatOther, Self.notes]
                do {
                    _ = try integration.enable(way: .environment, desktops: "X", files: [], types: [], routes: routes)
                } catch {}
                store.failOnSet = nil
                switch next {
                case "status":
                    // What was begun is finished (a removal undone, an addition made); status
                    // does not know the routes, so it adds nothing it was not begun.
                    #expect(try integration.status().changed.isEmpty, "stopped at \(stop)")
                    #expect(store.entries["text/x-todo"] == nil, "stopped at \(stop)")
                case "enable":
                    _ = try integration.enable(way: .environment, desktops: "X", files: [], types: [], routes: routes)
                default:
                    break
                }
                if next == "enable" {
                    #expect(store.entries["x-scheme-handler/todolist"]?.apps["org.test.Chat"] == ["org.test.Other", "3", "3"], "stopped at \(stop), then \(next)")
                    #expect(store.entries["text/x-todo"] == nil && store.entries["x-scheme-handler/bank"]?.data == .noData, "stopped at \(stop), then \(next)")
                    #expect(try integration.record()?.removing == [])
                }
                _ = try integration.disable()
                #expect(store.entries == Self.original(), "stopped at \(stop), then \(next)")
                #expect(try integration.record() == nil)
            }
        }
    }
}
