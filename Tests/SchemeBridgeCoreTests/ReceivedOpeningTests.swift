import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// What a device sent, opened as the core says (``ReceivedOpeningPort``'s rules): what is opened
/// how under each `OpenReceived`, only where the engine writes, what a notification offers, and
/// the devices' names and icons. End to end: `ReceivedNotificationTests`, `ReceivedFileDialogTests`.
@Suite struct ReceivedOpeningTests {
    /// The session: opening recorded (a document's descriptor closed), the log kept.
    final class Session: ReceivedOpeningPort, @unchecked Sendable {
        let nearbyDevices = [NearbyDevice(id: "p1", name: "Pixel", reachable: true, paired: true, canReceive: true, kind: .tablet)]
        let directories: XDGDirectories
        let documents: Documents
        let openReceived: OpenReceived
        let opened = Mutex<[String]>([])
        let lines = Mutex<[String]>([])
        var runner: any DescriptorRunner { InlineRunner() }

        init(tree: XDGTree, mode: OpenReceived) {
            directories = XDGDirectories(environment: tree.environment)
            documents = Documents(types: ContentTypeDatabase(mimeDirectories: ["/usr/share/mime"]), inbox: Inbox(root: tree.root + "/inbox"),
                                  handlersAlongChain: { chain in (chain.first ?? "", []) })
            openReceived = mode
        }

        func opensScheme(_ scheme: String) -> Bool { scheme == "mailto" }
        func openDocument(_ fd: Int32, name: String, type: ContentType, ask: Bool, from: String) async throws -> String {
            let bytes = readAll(fd)
            close(fd)
            opened.withLock { $0.append("document \(name) \(type.name) ask=\(ask) from=\(from) \(bytes.count) bytes") }
            return "viewer.desktop"
        }
        func openURL(_ url: String, ask: Bool) async throws -> String {
            opened.withLock { $0.append("url \(url) ask=\(ask)") }
            return "mail.desktop"
        }
        func failure(_ error: any Error) -> ReceivedNotifierFailure {
            let failure = error as? ServiceFailure ?? ServiceFailure(.failed, "\(error)")
            return ReceivedNotifierFailure(name: failure.kind.rawValue, message: failure.message)
        }
        func log(_ level: ReceivedNotifierLogLevel, _ message: String) { lines.withLock { $0.append(message) } }
    }

    let tree = XDGTree(dataDirCount: 1)
    /// The download folder (`$HOME/Downloads`) and the engine's folder, as resolved.
    let downloads: String, engine: String

    init() {
        let home = FileSystem.realPath(tree.home) ?? tree.home
        downloads = home + "/Downloads"
        engine = (FileSystem.realPath(tree.root) ?? tree.root) + "/engine"
        tree.mkdir(downloads)
        tree.mkdir(engine)
    }

    @Test func filesOpenAsDocumentsAndLinksAsURLsAsTheModeSays() async {
        tree.write(downloads + "/photo.txt", "a photo, really")
        tree.write(engine + "/kdeconnect-abc123.txt", "mailto:someone@example.org\n")
        tree.write(engine + "/kdeconnect-def456.txt", "just words")
        let file = ReceivedFromDevice(deviceID: "p1", share: .file(downloads + "/photo.txt"))
        let link = ReceivedFromDevice(deviceID: "p1", share: .text(engine + "/kdeconnect-abc123.txt"), engineDirectory: engine)
        let words = ReceivedFromDevice(deviceID: "gone", share: .text(engine + "/kdeconnect-def456.txt"), engineDirectory: engine)

        let ask = Session(tree: tree, mode: .ask)
        let openedFile = await ask.open(file)
        #expect(openedFile && ask.opened.withLock { $0 } == ["document photo.txt text/plain ask=true from=Pixel 15 bytes"])
        let openedLink = await ask.open(link, mode: .default), openedWords = await ask.open(words)
        #expect(openedLink && openedWords)
        #expect(ask.opened.withLock { Array($0.dropFirst()) } == ["url mailto:someone@example.org ask=false", "document kdeconnect-def456.txt text/plain ask=true from=gone 10 bytes"],
                "text no app opens as a link is a document; an unlisted device is named by its id")
        #expect(ask.lines.withLock { $0.first } == "opened the file Pixel sent with viewer.desktop")

        let never = Session(tree: tree, mode: .never)
        let left = await never.open(file)
        #expect(!left && never.opened.withLock { $0 }.isEmpty)
        #expect(never.lines.withLock { $0 } == ["received a share from Pixel; [Devices] OpenReceived=never leaves it where KDE Connect put it"])
    }

    @Test func onlyWhatIsWhereTheEngineWritesIsOpenedOrOffered() async {
        tree.write(tree.root + "/elsewhere.txt", "not from a device")
        symlink(tree.root + "/elsewhere.txt", downloads + "/link.txt")
        tree.write(downloads + "/ok.pdf", "%PDF-1.4")
        tree.write(engine + "/kdeconnect-abc123.txt", "mailto:someone@example.org")
        tree.write(engine + "/kdeconnect-xyz789.txt", "https://example.org/ is no scheme an app opens here")
        let session = Session(tree: tree, mode: .default)
        let outside = ReceivedFromDevice(deviceID: "p1", share: .file(tree.root + "/elsewhere.txt"))
        let link = ReceivedFromDevice(deviceID: "p1", share: .file(downloads + "/link.txt"))
        let (openedOutside, openedLink) = (await session.open(outside), await session.open(link))
        #expect(!openedOutside && !openedLink && session.opened.withLock { $0 }.isEmpty)
        #expect(session.lines.withLock { $0.allSatisfy { $0.hasPrefix("could not open what Pixel sent: org.freedesktop.DBus.Error.Failed: ") } })
        let (offeredOutside, offeredLink) = (await session.offered(outside), await session.offered(link))
        #expect(offeredOutside == nil && offeredLink == nil)
        #expect(await session.offered(ReceivedFromDevice(deviceID: "p1", share: .file(downloads + "/ok.pdf"))) == .file("ok.pdf"))
        #expect(await session.offered(ReceivedFromDevice(deviceID: "p1", share: .text(engine + "/kdeconnect-abc123.txt"), engineDirectory: engine))
            == .link("mailto:someone@example.org"))
        #expect(await session.offered(ReceivedFromDevice(deviceID: "p1", share: .text(engine + "/kdeconnect-xyz789.txt"), engineDirectory: engine)) == .text)
        #expect(await session.offered(ReceivedFromDevice(deviceID: "p1", share: .text(engine + "/kdeconnect-abc123.txt"))) == nil,
                "text is believed only in the engine's folder")
        #expect(session.lines.withLock { $0.last?.hasPrefix("not offering what Pixel sent: ") } == true)
    }

    @Test func devicesAreNamedAndShownByKind() {
        let session = Session(tree: tree, mode: .ask)
        #expect(session.deviceName("p1") == "Pixel" && session.deviceName("p2") == "A device that is not listed now")
        #expect(session.deviceIcon("p1") == DeviceKind.tablet.icon && session.deviceIcon("p2") == DeviceKind.phone.icon)
    }
}
