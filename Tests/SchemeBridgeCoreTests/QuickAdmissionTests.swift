import Foundation
import Testing
@testable import SchemeBridgeCore

/// ``Broker/admitsQuickly(_:handler:caller:)``: which opens a service may admit and spawn on its
/// D-Bus loop thread (issue 36) — never one whose check would first build the registry's model.
@Suite struct QuickAdmissionTests {
    @Test func servedFromTheIndexWhatIsQuickIsSaidWithoutBuildingTheModel() async throws {
        let tree = XDGTree()
        tree.entry(0, "user.desktop", schemes: ["mine"])
        tree.entry(1, "system.desktop", schemes: ["theirs"])
        await XDGTree.outlastTimestampMargin()  // no file "racy" for the index
        for _ in 0..<2 { Registry(environment: tree.environment, watch: false).close() }
        let registry = Registry(environment: tree.environment, watch: false)
        defer { registry.close() }
        #expect(registry.isServedFromIndex)
        let broker = Broker(registry: registry, policy: PolicyStore(path: tree.configHome + "/none"), ownDesktopIDs: [])
        let caller = Caller(busName: ":1.9")
        #expect(broker.admitsQuickly(try SchemeURL("theirs://x"), handler: nil, caller: caller))
        #expect(broker.admitsQuickly(try SchemeURL("theirs://x"), handler: DesktopID(fileName: "system.desktop"), caller: caller))
        #expect(broker.admitsQuickly(try SchemeURL("nothing://x"), handler: nil, caller: caller), "refused at once")
        // The user's entry: what it masks is in the index (version 8), so its check builds nothing.
        #expect(broker.admitsQuickly(try SchemeURL("mine://x"), handler: nil, caller: caller))
        #expect(broker.admitsQuickly(try SchemeURL("theirs://x"), handler: DesktopID(fileName: "user.desktop"), caller: caller))
        // x-callback URLs: the caller's entry is looked up and the routes pinned.
        #expect(!broker.admitsQuickly(try SchemeURL("theirs://x?x-success=mine%3A%2F%2Fback"), handler: nil, caller: caller))
        #expect(registry.isServedFromIndex, "asking built the model")
        // Once the model is built (the first change), every open is quick.
        registry.rescan()
        #expect(!registry.isServedFromIndex)
        #expect(broker.admitsQuickly(try SchemeURL("mine://x"), handler: nil, caller: caller))
    }

    /// Served from the index, the first open of an entry in the user's folder that masks a
    /// system entry of the same ID is admitted from the index and launches the user's program —
    /// never the masked one — without building the model (its check reads the masked entries,
    /// which the index now holds); one that masks nothing likewise.
    @Test func aUserEntryIsAdmittedAndLaunchedFromTheIndexAndTheMaskedOneNeverRuns() async throws {
        let tree = XDGTree()
        tree.mkdir(tree.bin)
        func recorder(_ name: String) -> String {
            let path = tree.bin + "/" + name
            tree.write(path, "#!/bin/sh\nprintf '%s' \"$1\" > \(tree.root)/\(name).ran\n")
            chmod(path, 0o755)
            return path
        }
        tree.entry(0, "app.desktop", schemes: ["mine"], exec: recorder("user-app") + " %u")
        tree.entry(1, "app.desktop", schemes: ["mine"], exec: recorder("system-app") + " %u")
        tree.entry(2, "app.desktop", schemes: ["mine"], exec: recorder("lower-app") + " %u")
        tree.entry(0, "alone.desktop", schemes: ["solo"], exec: recorder("alone") + " %u")
        await XDGTree.outlastTimestampMargin()  // no file "racy" for the index
        for _ in 0..<2 { Registry(environment: tree.environment, watch: false).close() }
        let registry = Registry(environment: tree.environment, watch: false)
        defer { registry.close() }
        #expect(registry.isServedFromIndex)
        let scanned = Registry(environment: tree.environment, watch: false, index: .disabled)
        #expect(registry.maskedEntries(id: "app.desktop") == scanned.maskedEntries(id: "app.desktop"))
        #expect(registry.maskedEntries(id: "app.desktop").map(\.path) == [tree.apps(1) + "/app.desktop", tree.apps(2) + "/app.desktop"])
        #expect(registry.maskedEntries(id: "alone.desktop").isEmpty)
        #expect(registry.isServedFromIndex, "listing what an entry masks built the model")

        let broker = Broker(registry: registry, policy: PolicyStore(path: tree.configHome + "/none"), ownDesktopIDs: [])
        let starter = HandlerStarter(baseEnvironment: ["PATH": "/usr/bin:/bin"], callbackRoutes: broker.callbackRoutes,
                                     pasteboards: PasteboardStore(disk: nil), log: { _ in })
        let caller = Caller(busName: ":1.7", pid: 42, id: "org.example.Caller")
        for (url, ran) in [("mine://first", "user-app"), ("solo://first", "alone")] {
            let target = try SchemeURL(url)
            #expect(broker.admitsQuickly(target, handler: nil, caller: caller), "\(url)")
            let admission = try broker.admit(OpenRequest(url: target, caller: caller), searchPath: registry.directories.executableSearchPath,
                                             sessionScale: 1, splashAvailable: false)
            #expect(admission.plan.entry.path.hasPrefix(tree.apps(0) + "/"), "\(admission.plan.entry.path)")
            let pids = try starter.spawn(admission, request: 1, pasteboard: nil, watcher: HandlerStarterTests.Watcher())
            #expect(pids.count == 1)
            #expect(await waitUntil(timeout: .seconds(120)) { tree.read(tree.root + "/\(ran).ran") == url } != nil, "\(url) did not run \(ran)")
        }
        #expect(tree.read(tree.root + "/system-app.ran") == nil && tree.read(tree.root + "/lower-app.ran") == nil, "a masked entry ran")
        #expect(registry.isServedFromIndex, "the first open of a user's entry built the model")
    }
}
