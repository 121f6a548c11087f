import Foundation
import Testing
@testable import SchemeBridgeCore

/// `schemebridge integrate --portal` (issue 40, item 2) on real files: the changes for each way
/// of telling the portal (``PortalSelection``), the record, and the engine's round trip — every
/// file byte for byte as before, every permission-store state as before, directories it made
/// gone — including after a command stopped half-way. The permission store here is a table in
/// memory (its D-Bus side, with the real xdg-permission-store, is in ServiceTests'
/// PortalIntegrateTests).
@Suite struct PortalIntegrationTests {
    /// `desktop-used-apps` in memory: per type, whether there is an entry, its data's state, and
    /// whether it holds app permissions. `failOnSet`: the Nth write fails (a command stopped there).
    final class Store: PortalPermissionStore {
        var states: [String: PortalAskState] = [:]
        var writes = 0
        var failOnSet: Int?
        func alwaysAsk(_ type: String) throws(PortalIntegrationError) -> PortalAskState { states[type] ?? .noEntry }
        func setAlwaysAsk(_ type: String, _ state: PortalAskState) throws(PortalIntegrationError) {
            writes += 1
            if writes == failOnSet { throw PortalIntegrationError("stopped at write \(writes)") }
            states[type] = state == .noEntry ? nil : state
        }
        // Routes are not published here (PortalPublishedRoutesTests).
        func permission(_ type: String, app: String) throws(PortalIntegrationError) -> PortalAppPermission { .noEntry }
        func setPermission(_ type: String, app: String, _ permission: PortalAppPermission) throws(PortalIntegrationError) {
            Issue.record("no route is published in these tests")
        }
    }

    static let systemService = "[D-BUS Service]\nName=org.freedesktop.portal.Desktop\nExec=/usr/libexec/xdg-desktop-portal\nSystemdService=xdg-desktop-portal.service\nAssumedAppArmorLabel=unconfined\n"

    /// A tree whose first data directory holds the system's portal activation file, and a unit
    /// directory with the portal's systemd unit.
    static func tree(desktop: String? = "GNOME") -> (XDGTree, units: String) {
        let tree = XDGTree(dataDirCount: 1, desktop: desktop)
        tree.write(tree.dataDirs[0] + "/dbus-1/services/org.freedesktop.portal.Desktop.service", systemService)
        let units = tree.root + "/units"
        tree.write(units + "/xdg-desktop-portal.service", "[Service]\nExecStart=/usr/libexec/xdg-desktop-portal\n")
        return (tree, units)
    }

    static func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { Array($0) } }

    @Test func theRecordReadsBackWhateverTheFilesHeld() throws {
        let record = PortalIntegrationRecord(phase: .enabling, way: .environment, desktops: "X-SchemeBridge:GNOME", changes: [
            .directory(path: "/tmp/x y"),
            .file(path: "/tmp/x y/f\nnewline", before: [0xFF, 0x00, 0x0A, 0x0D], after: Array("end\n".utf8)),
            .file(path: "/tmp/new", before: nil, after: []),
            .file(path: "/tmp/gone", before: [0x41], after: nil),
        ] + [PortalAskState.noEntry, .noData, .unset, .set(false)].enumerated().map { .alwaysAsk(type: "text/t\($0.offset)", before: $0.element) })
        let bytes = record.encoded()
        #expect(PortalIntegrationRecord.decode(bytes) == record)
        // A torn or foreign file is not a record.
        #expect(PortalIntegrationRecord.decode(Array(bytes.dropLast(3))) == nil)
        #expect(PortalIntegrationRecord.decode(Array("[Integration]\n".utf8)) == nil)
    }

    @Test func version116IsTheEnvironmentAndLaterIsPortalsConf() {
        #expect(PortalSelection.version(fromOutput: "xdg-desktop-portal 1.16.0\n") == "1.16.0")
        #expect(PortalSelection.way(forVersion: "1.16.0") == .environment)
        #expect(PortalSelection.way(forVersion: "1.17.0") == .portalsConf)
        #expect(PortalSelection.way(forVersion: "1.20.3") == .portalsConf)
        #expect(PortalSelection.way(forVersion: "2.0") == .portalsConf)
        #expect(PortalSelection.version(fromOutput: "env (GNU coreutils) 9.1") == nil)
    }

    /// 1.16: the user's copy of the activation file runs the portal with SchemeBridge's desktop
    /// first, the systemd drop-in says the same; directories made are recorded first.
    @Test func theEnvironmentWayCopiesTheActivationFileAndAddsADropIn() throws {
        let (tree, units) = Self.tree(desktop: "X-SchemeBridge:GNOME:GNOME-Classic")
        let changes = try PortalSelection.files(way: .environment, directories: XDGDirectories(environment: tree.environment), currentDesktop: tree.desktop,
                                                portalsDirectory: tree.root + "/portals", unitDirectories: [units])
        let service = tree.dataHome + "/dbus-1/services/org.freedesktop.portal.Desktop.service"
        let dropIn = tree.configHome + "/systemd/user/xdg-desktop-portal.service.d/schemebridge.conf"
        #expect(changes.map(\.key) == [tree.dataHome + "/dbus-1", tree.dataHome + "/dbus-1/services", service,
                                       tree.configHome + "/systemd", tree.configHome + "/systemd/user",
                                       tree.configHome + "/systemd/user/xdg-desktop-portal.service.d", dropIn])
        guard case .file(_, let before, let after?) = changes[2], case .file(_, nil, let unit?) = changes[6] else {
            Issue.record("\(changes)")
            return
        }
        #expect(before == nil)
        let text = String(decoding: after, as: UTF8.self)
        #expect(text.hasPrefix("# A copy of the portal's D-Bus activation file"))
        #expect(text.hasSuffix(Self.systemService.replacingOccurrences(of: "Exec=/usr/libexec/xdg-desktop-portal",
                                                                        with: "Exec=/usr/bin/env XDG_CURRENT_DESKTOP=X-SchemeBridge:GNOME:GNOME-Classic /usr/libexec/xdg-desktop-portal")))
        #expect(String(decoding: unit, as: UTF8.self).hasSuffix("[Service]\nEnvironment=XDG_CURRENT_DESKTOP=X-SchemeBridge:GNOME:GNOME-Classic\n"))
        // No unit installed: no drop-in.
        let without = try PortalSelection.files(way: .environment, directories: XDGDirectories(environment: tree.environment), currentDesktop: tree.desktop,
                                                portalsDirectory: tree.root + "/portals", unitDirectories: [tree.root + "/none"])
        #expect(without.map(\.key) == Array(changes.map(\.key).prefix(3)))
    }

    @Test func theEnvironmentWayEditsTheUsersOwnActivationFileAndNeedsADesktop() throws {
        let (tree, units) = Self.tree()
        let service = tree.dataHome + "/dbus-1/services/org.freedesktop.portal.Desktop.service"
        let mine: [UInt8] = Array("# mine (caf".utf8) + [0xE9] + Array(")\r\n[D-BUS Service]\r\nName=org.freedesktop.portal.Desktop\r\nExec=/opt/portal -v\r\n".utf8)
        tree.writeBytes(service, mine)
        let changes = try PortalSelection.files(way: .environment, directories: XDGDirectories(environment: tree.environment), currentDesktop: tree.desktop,
                                                portalsDirectory: tree.root + "/portals", unitDirectories: [units])
        guard case .file(let path, let before, let after?) = changes.first else {
            Issue.record("\(changes)")
            return
        }
        #expect(path == service && before == mine)
        #expect(after == Array("# mine (caf".utf8) + [0xE9] + Array(")\r\n[D-BUS Service]\r\nName=org.freedesktop.portal.Desktop\r\nExec=/usr/bin/env XDG_CURRENT_DESKTOP=X-SchemeBridge:GNOME /opt/portal -v\r\n".utf8))

        let (bare, _) = Self.tree(desktop: nil)
        #expect(throws: PortalSelection.Refusal.self) {
            try PortalSelection.files(way: .environment, directories: XDGDirectories(environment: bare.environment), currentDesktop: bare.desktop, portalsDirectory: bare.root)
        }
        let (odd, _) = Self.tree(desktop: "GNOME;rm -rf")
        #expect(throws: PortalSelection.Refusal.self) {
            try PortalSelection.files(way: .environment, directories: XDGDirectories(environment: odd.environment), currentDesktop: odd.desktop, portalsDirectory: odd.root)
        }
    }

    /// 1.17: the user's desktop-specific file is edited in place; else the file the portal reads
    /// now is copied to the user's directory (default= and the rest kept); else a new one.
    @Test func thePortalsConfWayKeepsDefault() throws {
        let tree = XDGTree(dataDirCount: 1, desktop: "GNOME")
        let dirs = XDGDirectories(environment: tree.environment)
        let sys = tree.root + "/share-xdp"
        func edit() throws -> (String, [UInt8]?, [UInt8]) {
            let changes = try PortalSelection.files(way: .portalsConf, directories: dirs, currentDesktop: tree.desktop, portalsDirectory: tree.root + "/portals",
                                                    sysconfDirectory: tree.root + "/etc-xdp", dataDirectory: sys)
            guard case .file(let path, let before, let after?)? = changes.last else { throw PortalIntegrationError("\(changes)") }
            return (path, before, after)
        }
        // Nothing anywhere: default= from the backends whose UseIn names the desktop.
        tree.write(tree.root + "/portals/gnome.portal", "[portal]\nDBusName=a\nInterfaces=org.freedesktop.impl.portal.Screenshot;\nUseIn=gnome\n")
        tree.write(tree.root + "/portals/gtk.portal", "[portal]\nDBusName=b\nInterfaces=org.freedesktop.impl.portal.AppChooser;\nUseIn=gnome;xfce\n")
        tree.write(tree.root + "/portals/kde.portal", "[portal]\nDBusName=c\nInterfaces=org.freedesktop.impl.portal.AppChooser;\nUseIn=KDE\n")
        var (path, before, after) = try edit()
        #expect(path == tree.configHome + "/xdg-desktop-portal/portals.conf" && before == nil)
        #expect(String(decoding: after, as: UTF8.self).hasSuffix("[preferred]\ndefault=gnome;gtk;*\norg.freedesktop.impl.portal.AppChooser=schemebridge\norg.freedesktop.impl.portal.FileChooser=schemebridge\n"))
        // The system's gnome-portals.conf: copied whole, our line added.
        tree.write(sys + "/gnome-portals.conf", "[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\n")
        (path, before, after) = try edit()
        #expect(path == tree.configHome + "/xdg-desktop-portal/gnome-portals.conf" && before == nil)
        #expect(String(decoding: after, as: UTF8.self).hasSuffix("\n[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\norg.freedesktop.impl.portal.AppChooser=schemebridge\norg.freedesktop.impl.portal.FileChooser=schemebridge\n"))
        // The user's own portals.conf wins over the system's desktop file; its AppChooser line is replaced.
        let mine = Array("[preferred]\r\ndefault=kde\r\norg.freedesktop.impl.portal.AppChooser=kde\r\n".utf8)
        tree.writeBytes(tree.configHome + "/xdg-desktop-portal/portals.conf", mine)
        (path, before, after) = try edit()
        #expect(path == tree.configHome + "/xdg-desktop-portal/portals.conf" && before == mine)
        #expect(after == Array("[preferred]\r\ndefault=kde\r\norg.freedesktop.impl.portal.AppChooser=schemebridge\r\norg.freedesktop.impl.portal.FileChooser=schemebridge\r\n".utf8))
    }

    @Test func theTypesAreTheRoutedOnes() {
        let types = PortalIntegration.alwaysAskTypes(
            routes: [Route(subject: "todolist", callerPattern: "org.test.*", desktopID: "a.desktop"),
                     Route(subject: "text/plain", callerPattern: "x", desktopID: "b.desktop")],
            choices: [Choice(caller: "org.test.App", subject: "mailto", desktopID: "m.desktop"),
                      Choice(caller: "org.test.App", subject: "pick:image/*", desktopID: "p.desktop"),
                      Choice(caller: "org.test.App", subject: "todolist", desktopID: "t.desktop")],
            routedSchemes: ["bank"])
        #expect(types == ["text/plain", "x-scheme-handler/bank", "x-scheme-handler/mailto", "x-scheme-handler/todolist"])
    }

    /// Enable then disable: every file, directory and store state as before; a second enable
    /// adds only what is new; a change someone made since is left alone and reported.
    @Test func enableThenDisableLeavesEverythingAsItWas() throws {
        let (tree, units) = Self.tree()
        let dirs = XDGDirectories(environment: tree.environment)
        let store = Store()
        store.states = ["text/plain": .noData, "text/html": .unset, "image/png": .set(false), "text/x-c": .asked]
        let original = store.states
        var integration = PortalIntegration(directories: dirs, store: store)
        let files = try PortalSelection.files(way: .environment, directories: dirs, currentDesktop: tree.desktop, portalsDirectory: tree.root, unitDirectories: [units])
        let types = ["text/plain", "text/html", "image/png", "text/x-c", "x-scheme-handler/todolist"]
        let outcome = try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: files, types: types)
        #expect(outcome.changed.isEmpty && outcome.done.count == files.count + 4, "\(outcome)")
        #expect(types.allSatisfy { store.states[$0] == .asked })
        let service = tree.dataHome + "/dbus-1/services/org.freedesktop.portal.Desktop.service"
        #expect(FileManager.default.fileExists(atPath: service))
        var (record, changed) = try integration.status()
        #expect(record?.phase == .enabled && changed.isEmpty)

        // Again, with one more type: only it is added.
        let again = try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: files, types: types + ["text/csv"])
        #expect(again.done == ["always-ask text/csv"])

        // Someone changes html back meanwhile: left alone, reported.
        store.states["text/html"] = .set(false)
        (record, changed) = try integration.status()
        #expect(changed == ["always-ask text/html"])
        let back = try integration.disable()
        #expect(back.changed == ["always-ask text/html"])
        store.states["text/html"] = .unset
        #expect(store.states == original)
        #expect(!FileManager.default.fileExists(atPath: tree.dataHome + "/dbus-1"), "the directories made are gone")
        #expect(!FileManager.default.fileExists(atPath: tree.configHome + "/systemd"))
        #expect(!FileManager.default.fileExists(atPath: integration.recordPath))
        #expect(try integration.status().record == nil)
    }

    /// A command stopped at any write (the store fails there, as a kill would stop it): the
    /// record says enabling, `status` finishes it, and `disable` after either gives everything back.
    @Test func aCommandStoppedAtAnyWriteIsFinishedOrUndone() throws {
        for stop in 1...4 {
            for finishFirst in [false, true] {
                let (tree, units) = Self.tree()
                let dirs = XDGDirectories(environment: tree.environment)
                let service = tree.dataHome + "/dbus-1/services/org.freedesktop.portal.Desktop.service"
                let mine = Array("[D-BUS Service]\nName=org.freedesktop.portal.Desktop\nExec=/opt/p\n".utf8)
                tree.writeBytes(service, mine)
                let store = Store()
                store.states = ["text/plain": .noData]
                store.failOnSet = stop
                var integration = PortalIntegration(directories: dirs, store: store)
                let files = try PortalSelection.files(way: .environment, directories: dirs, currentDesktop: tree.desktop, portalsDirectory: tree.root, unitDirectories: [units])
                let types = ["text/plain", "text/html", "x-scheme-handler/a", "x-scheme-handler/b"]
                #expect(throws: PortalIntegrationError.self) {
                    try integration.enable(way: .environment, desktops: "X-SchemeBridge:GNOME", files: files, types: types)
                }
                #expect(try integration.record()?.phase == .enabling)
                store.failOnSet = nil
                if finishFirst {
                    let (record, changed) = try integration.status()
                    #expect(record?.phase == .enabled && changed.isEmpty)
                    #expect(types.allSatisfy { store.states[$0] == .asked })
                }
                _ = try integration.disable()
                #expect(store.states == ["text/plain": .noData], "stopped at \(stop), finished first: \(finishFirst)")
                #expect(Self.bytes(service) == mine)
                #expect(!FileManager.default.fileExists(atPath: tree.configHome + "/systemd"))
                #expect(!FileManager.default.fileExists(atPath: integration.recordPath))
            }
        }
    }
}
