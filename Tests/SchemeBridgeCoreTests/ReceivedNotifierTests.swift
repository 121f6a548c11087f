import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// ``ReceivedNotifier``: what devices send becomes one notification per transfer; its answers
/// are believed once, from the server that showed it; "Not from this device" is remembered; with
/// no notification server, or `OpenReceived=never`, nothing waits for an answer.
@Suite struct ReceivedNotifierTests {
    struct Shown: Hashable, Sendable { var id: UInt32; var owner: String }

    /// The session as the notifier sees it, recording what it was asked.
    final class Session: ReceivedNotifierPort, @unchecked Sendable {
        struct State {
            var mode = OpenReceived.ask
            var server: (name: String, capabilities: [String])? = ("test-server", ["actions"])
            var notices: [(Shown, ReceivedNotice)] = []
            var opened: [(String, OpenReceived?)] = []
            var folders: [(String, Bool)] = []
            var closed: [Shown] = []
            var shownInFileManager: [[String]] = []
            var log: [String] = []
        }
        let state = Mutex(State())

        var openReceived: OpenReceived { state.withLock { $0.mode } }
        func deviceName(_ id: String) -> String { "Phone \(id)" }
        func deviceIcon(_ id: String) -> String { "phone" }
        func open(_ received: ReceivedFromDevice, mode: OpenReceived?) async -> Bool {
            state.withLock { $0.opened.append((received.share.path, mode)) }
            return true
        }
        func openFolder(_ folder: String, ask: Bool) async throws(ReceivedNotifierFailure) -> String {
            state.withLock { $0.folders.append((folder, ask)) }
            return "files.desktop"
        }
        func offered(_ received: ReceivedFromDevice) async -> ReceivedNotice.Item? {
            received.share.path.hasPrefix("/outside/") ? nil : .file(ReceivedNotice.fileName(received.share.path))
        }
        func notificationServer() async throws(ReceivedNotifierFailure) -> (name: String, capabilities: [String]) {
            guard let server = state.withLock({ $0.server }) else {
                throw ReceivedNotifierFailure(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "no server")
            }
            return server
        }
        func notify(_ notice: ReceivedNotice, icon: String) async throws(ReceivedNotifierFailure) -> Shown {
            state.withLock { s in
                let shown = Shown(id: UInt32(s.notices.count + 1), owner: ":1.9")
                s.notices.append((shown, notice))
                return shown
            }
        }
        func describe(_ shown: Shown) -> (id: UInt32, owner: String) { (shown.id, shown.owner) }
        func close(_ shown: Shown) async { state.withLock { $0.closed.append(shown) } }
        func fileManagerAvailable() async -> Bool { true }
        func showInFileManager(_ fileURLs: [String]) async throws(ReceivedNotifierFailure) {
            state.withLock { $0.shownInFileManager.append(fileURLs) }
        }
        func log(_ level: ReceivedNotifierLogLevel, _ message: String) { state.withLock { $0.log.append(message) } }
    }

    static func quick() -> ReceivedTransferLimits {
        var limits = ReceivedTransferLimits()
        limits.quietMilliseconds = 100
        return limits
    }

    static func received(_ path: String, from device: String = "p1") -> ReceivedFromDevice {
        ReceivedFromDevice(deviceID: device, share: .file(path))
    }

    /// Waits (a generous ceiling, no fixed sleep) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aBurstIsOneNotificationAndItsFirstAnswerSettlesIt() async {
        let tree = XDGTree()
        let session = Session()
        let notifier = ReceivedNotifier(port: session, blockedPath: tree.configHome + "/schemebridge/blocked-devices", limits: Self.quick())
        await notifier.receive(Self.received("/home/u/Downloads/a.jpg"))
        await notifier.receive(Self.received("/home/u/Downloads/b.jpg"))
        #expect(await Self.eventually { session.state.withLock { $0.notices.count } == 1 })
        let (shown, notice) = session.state.withLock { $0.notices[0] }
        #expect(notice.summary.contains("Phone p1") && notice.summary.contains("2 files"), "\(notice.summary)")
        #expect(notice.actions.contains(.open))
        // An answer from another server is not believed; the first from the one that showed it is.
        await notifier.handle(.actionInvoked(Shown(id: shown.id, owner: ":1.66"), name: "open"))
        #expect(session.state.withLock { $0.folders.isEmpty })
        await notifier.handle(.actionInvoked(shown, name: "open"))
        await notifier.handle(.actionInvoked(shown, name: "open"))
        let folders = session.state.withLock { $0.folders }
        #expect(folders.count == 1 && folders.first?.0 == "/home/u/Downloads" && folders.first?.1 == false)
        #expect(session.state.withLock { $0.closed } == [shown])
        await notifier.stop()
    }

    @Test func withoutANotificationServerTheOneItemIsAskedAbout() async {
        let tree = XDGTree()
        let session = Session()
        session.state.withLock { $0.server = nil }
        let notifier = ReceivedNotifier(port: session, blockedPath: tree.configHome + "/schemebridge/blocked-devices", limits: Self.quick())
        await notifier.receive(Self.received("/home/u/Downloads/a.jpg"))
        #expect(await Self.eventually { !session.state.withLock { $0.opened.isEmpty } })
        let opened = session.state.withLock { $0.opened }
        #expect(opened.count == 1 && opened.first?.0 == "/home/u/Downloads/a.jpg" && opened.first?.1 == .ask)
        #expect(session.state.withLock { $0.notices.isEmpty })
        #expect(session.state.withLock { $0.log.contains { $0.hasPrefix("no notification server with actions on the bus (org.freedesktop.DBus.Error.ServiceUnknown: no server)") } })
        await notifier.stop()
    }

    @Test func neverLeavesItWithoutANotification() async {
        let tree = XDGTree()
        let session = Session()
        session.state.withLock { $0.mode = .never }
        let notifier = ReceivedNotifier(port: session, blockedPath: tree.configHome + "/schemebridge/blocked-devices", limits: Self.quick())
        await notifier.receive(Self.received("/home/u/Downloads/a.jpg"))
        let opened = session.state.withLock { $0.opened }
        #expect(opened.count == 1 && opened.first?.1 == nil, "handed over as configured (the port logs that it is left)")
        #expect(session.state.withLock { $0.notices.isEmpty })
        await notifier.stop()
    }

    @Test func notFromThisDeviceIsRememberedAndItsNextSharesAreKept() async {
        let tree = XDGTree()
        let session = Session()
        let blocked = tree.configHome + "/schemebridge/blocked-devices"
        let notifier = ReceivedNotifier(port: session, blockedPath: blocked, limits: Self.quick())
        await notifier.receive(Self.received("/home/u/Downloads/a.jpg"))
        #expect(await Self.eventually { session.state.withLock { $0.notices.count } == 1 })
        let shown = session.state.withLock { $0.notices[0].0 }
        await notifier.handle(.actionInvoked(shown, name: "not-from-this-device"))
        #expect(BlockedDevices.load(blocked).contains("p1"))
        await notifier.receive(Self.received("/home/u/Downloads/b.jpg"))
        #expect(session.state.withLock { $0.log.contains { $0.contains("b.jpg") && $0.contains("not from this device") } })
        await notifier.receive(Self.received("/home/u/Downloads/c.jpg", from: "p2"))
        #expect(await Self.eventually { session.state.withLock { $0.notices.count } == 2 }, "another device is still offered")
        #expect(session.state.withLock { $0.opened.isEmpty && $0.folders.isEmpty })
        await notifier.stop()
    }

    @Test func showInFolderHandsTheFilesToTheFileManager() async {
        let tree = XDGTree()
        let session = Session()
        let notifier = ReceivedNotifier(port: session, blockedPath: tree.configHome + "/schemebridge/blocked-devices", limits: Self.quick())
        await notifier.receive(Self.received("/home/u/Downloads/a b.jpg"))
        await notifier.receive(Self.received("/outside/x.jpg"))  // not where the engine writes: not offered
        #expect(await Self.eventually { session.state.withLock { $0.notices.count } == 1 })
        let shown = session.state.withLock { $0.notices[0].0 }
        await notifier.handle(.closed(Shown(id: 99, owner: ":1.9")))  // not ours
        await notifier.handle(.actionInvoked(shown, name: "show-in-folder"))
        #expect(session.state.withLock { $0.shownInFileManager } == [["file:///home/u/Downloads/a%20b.jpg"]])
        await notifier.stop()
    }

    @Test func theFolderOfATransferIsItsFirstFiles() {
        #expect(ReceivedFromDevice.folder(of: [ReceivedFromDevice(deviceID: "d", share: .text("/t/x.txt")), Self.received("/a/b/c.jpg")]) == "/a/b")
        #expect(ReceivedFromDevice.folder(of: [ReceivedFromDevice(deviceID: "d", share: .text("/t/x.txt"))]) == "/t")
        #expect(ReceivedFromDevice.folder(of: [Self.received("/c.jpg")]) == "/")
        #expect(ReceivedFromDevice.folder(of: []) == nil)
    }
}
