import Foundation
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Sending a share to a nearby device: what its items are sent as (``OutboxKeeper``), the
/// sends handed to the engine and the upload followed (``DeviceShareSender``, ``TransferCancel``),
/// its progress shown (``TransferProgress``). End to end: `DeviceShareTests`, `DeviceTransferTests`,
/// `GSConnectShareTests`.
@Suite struct DeviceSendingTests {
    let tree = XDGTree(dataDirCount: 1)

    /// A keeper of an outbox in the tree; its log lines in `lines`.
    func keeper(lifetime: Int64 = Outbox.defaultLifetime, runner: InlineRunner = InlineRunner(), lines: Lines = Lines()) -> OutboxKeeper {
        OutboxKeeper(outbox: Outbox(directory: tree.root + "/run/outbox", lifetime: lifetime), runner: runner) { _, line in
            lines.all.withLock { $0.append(line) }
        }
    }

    /// Log lines kept.
    typealias Lines = Kept<String>

    /// Values kept, in order (for closures that escape).
    final class Kept<T: Sendable>: Sendable {
        let all = Mutex<[T]>([])
        func append(_ value: T) { all.withLock { $0.append(value) } }
        var values: [T] { all.withLock { $0 } }
    }

    /// The tree's root as the kernel names it, and file `name` written there holding `text`, open for reading.
    func opened(_ name: String, holding text: String) -> (root: String, file: HeldFD) {
        let root = FileSystem.realPath(tree.root) ?? tree.root
        tree.write(root + "/" + name, text)
        return (root, HeldFD(reading: root + "/" + name))
    }

    @Test func itemsGoAsFilesTextAndURLsFilesByTheirOwnPathWhenTheyMay() async throws {
        let (root, file) = opened("notes.txt", holding: "my notes")
        let outbox = keeper()
        defer { outbox.stop() }
        let items: [SharedItem<HeldFD>] = [
            SharedItem(payload: .url("https://example.org/"), summary: ShareItemSummary(kind: .url, type: ShareItemSummary.uriType), name: ""),
            SharedItem(payload: .file(file), summary: ShareItemSummary(kind: .file, type: "text/plain"), name: "notes.txt"),
            SharedItem(payload: .data(.bytes(Array("hello".utf8)), holder: nil), summary: ShareItemSummary(kind: .data, type: "text/plain"), name: ""),
            SharedItem(payload: .data(.bytes([1, 2, 3]), holder: nil), summary: ShareItemSummary(kind: .data, type: "image/png"), name: "dots.png"),
        ]
        let mine = Caller(busName: ":1.5", id: "org.example.Sharer")
        let (files, sends) = try await outbox.sends(for: items, caller: mine, inbox: root + "/inbox")
        #expect(files.count == 2 && files[0] == root + "/notes.txt", "an unsandboxed caller's file goes by its own path")
        #expect(files[1].hasPrefix(tree.root + "/run/outbox/") && files[1].hasSuffix("/dots.png") && tree.read(files[1]) == "\u{1}\u{2}\u{3}")
        #expect(sends == [.files(files), .url("https://example.org/"), .text("hello")])
        #expect(outbox.nextSweep != nil, "the outbox is swept when its item expires")

        var sandboxed = mine
        sandboxed.sandboxed = true
        let copied = try await outbox.sends(for: [items[1]], caller: sandboxed, inbox: root + "/inbox").files
        #expect(copied.count == 1 && copied[0].hasSuffix("/notes.txt") && copied[0] != root + "/notes.txt" && tree.read(copied[0]) == "my notes",
                "a sandboxed caller's file is copied")
    }

    @Test func withoutAnOutboxDataCannotBeSentAndExpiredItemsAreSwept() async throws {
        let none = OutboxKeeper(outbox: nil, runner: InlineRunner()) { _, _ in }
        await #expect(throws: ServiceFailure(.launchFailed, "XDG_RUNTIME_DIR is not set: there is no private outbox to send data from")) {
            try await none.place([1], name: "a")
        }
        let busy = keeper(runner: InlineRunner(refusing: ServiceFailure(.limitsExceeded, "busy")))
        await #expect(throws: ServiceFailure(.launchFailed, "the data could not be written to the outbox: busy")) { try await busy.place([1], name: "a") }

        let lines = Lines()
        let outbox = keeper(lifetime: 1, lines: lines)
        defer { outbox.stop() }
        let path = try await outbox.place(Array("soon gone".utf8), name: "gone.txt")
        #expect(tree.read(path) == "soon gone")
        #expect(await waitUntil(timeout: .seconds(30)) { lines.values.contains("outbox: removed 1 expired item(s)") } != nil,
                "swept at its expiry, without being asked")
        #expect(access(path, F_OK) != 0 && outbox.nextSweep == nil)
    }

    /// An engine that takes every send, recording them.
    final class Engine: DeviceSending, @unchecked Sendable {
        let engineName: String
        let sent = Mutex<[DevicePayload]>([])
        init(_ name: String) { engineName = name }
        var shareTargets: [NearbyDevice] { [] }
        func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt {
            sent.withLock { $0.append(payload) }
            return DeviceSendReceipt(device: deviceID, deviceName: "Phone", engine: engineName)
        }
    }

    /// An engine that says when its call starts and when its answer is awaited; it refuses every
    /// start with `refusal` when given.
    final class StartingEngine: DeviceSending, @unchecked Sendable {
        let engineName = "kdeconnect"
        let log = Kept<String>()
        let refusal: ServiceFailure?
        init(refusing refusal: ServiceFailure? = nil) { self.refusal = refusal }
        var shareTargets: [NearbyDevice] { [] }
        func send(_ payload: DevicePayload, to deviceID: String) async throws(ServiceFailure) -> DeviceSendReceipt { try await start(payload, to: deviceID).taken() }
        func start(_ payload: DevicePayload, to deviceID: String) throws(ServiceFailure) -> DeviceSendStarted {
            if let refusal { throw refusal }
            log.append("call \(payload)")
            let receipt = DeviceSendReceipt(device: deviceID, deviceName: "Phone", engine: engineName)
            return DeviceSendStarted(answer: { [log] () async throws(ServiceFailure) -> DeviceSendReceipt in
                log.append("answer awaited")
                return receipt
            }, onTaken: { [log] taken in
                log.append("taken")
                taken(receipt)
            })
        }
    }

    /// A share decided for a device whose items go as they are is handed to the engine as it is
    /// made (``DeviceShareSender/startNow(_:decided:outbox:)``): the engine's call starts before
    /// anything is awaited, and the send finishes from there; what stops the start is kept for the
    /// share's answer. A question, an app, or an item that needs an outbox copy starts nothing.
    @Test func aShareDecidedForADeviceIsHandedOverAsItIsMade() async throws {
        let (root, file) = opened("beach.png", holding: "png")
        let outbox = keeper()
        defer { outbox.stop() }
        let facts = file.withFileDescriptor { SharedFileFacts.gather(fd: $0, name: "beach.png", callerSandboxed: false, excludedAsResolved: []) }
        let item = SharedItem(payload: .file(file), summary: ShareItemSummary(kind: .file, type: "image/png"), name: "beach.png", facts: facts)
        let (engine, jobs) = (StartingEngine(), Jobs(serving: true))
        let sender = DeviceShareSender(sender: engine, jobs: jobs, followedEngine: "kdeconnect")
        let toPhone = HandlerDecision.open(ChooserTargetID(ShareTargetID.device("phone1")), .requested)
        let started = try #require(sender.startNow([item], decided: toPhone, outbox: outbox))
        #expect(engine.log.values == ["call files([\"\(root)/beach.png\"])"], "the engine's call started before anything was awaited")
        let receipts = Kept<String>()
        #expect(try sender.whenTaken(started.sending.get()) { receipts.append($0.device) }, "one send: told as the engine takes it")
        #expect(receipts.values == ["phone1"] && engine.log.values.last == "taken")
        let mine = Caller(busName: ":1.5", id: "org.example.Sharer")
        let sent = try await sender.send([item], to: "phone1", started: started, outbox: outbox, caller: mine, inbox: root + "/inbox")
        #expect(sent.files == [root + "/beach.png"] && sent.receipt.device == "phone1" && sent.followed == 1)
        #expect(engine.log.values.count == 3 && engine.log.values.last == "answer awaited", "one call, its answer awaited once")
        let two = try sender.start([.files([root + "/beach.png"]), .text("and this")], to: "phone1")
        #expect(!sender.whenTaken(two) { receipts.append($0.device) }, "with a second send, the share is not done when the first is taken")
        let quiet = try DeviceShareSender(sender: Engine("kdeconnect"), jobs: jobs, followedEngine: "kdeconnect").start([.text("t")], to: "phone1")
        #expect(!DeviceShareSender(sender: Engine("kdeconnect"), jobs: jobs, followedEngine: "kdeconnect").whenTaken(quiet) { receipts.append($0.device) },
                "an engine that does not tell at once")
        #expect(receipts.values == ["phone1"])

        let data = SharedItem<HeldFD>(payload: .data(.bytes([1, 2, 3]), holder: nil), summary: ShareItemSummary(kind: .data, type: "image/png"), name: "dots.png")
        #expect(sender.startNow([data], decided: toPhone, outbox: outbox) == nil, "an outbox copy is made first")
        #expect(sender.startNow([item], decided: .open(ChooserTargetID("org.example.Viewer.desktop"), .requested), outbox: outbox) == nil)
        #expect(sender.startNow([item], decided: .ask(HandlerQuestion(subject: ShareTargetID.choiceSubject, candidates: [])), outbox: outbox) == nil)
        #expect(engine.log.values.count == 4, "nothing else started (the second share's first send only)")

        let refusing = DeviceShareSender(sender: StartingEngine(refusing: ServiceFailure(.noTarget, "phone1 is gone")), jobs: jobs, followedEngine: "kdeconnect")
        let refused = try #require(refusing.startNow([item], decided: toPhone, outbox: outbox))
        await #expect(throws: ServiceFailure(.noTarget, "phone1 is gone")) {
            try await refusing.send([item], to: "phone1", started: refused, outbox: outbox, caller: mine, inbox: root + "/inbox")
        }
    }

    /// Job reports: marks count sends; a follow reports 40% for view 7, then ends as told.
    final class Jobs: DeviceTransferJobs, @unchecked Sendable {
        let serving: Bool
        let marks = Mutex(0)
        let cancelled = Mutex<[UInt64]>([])
        let asked = Mutex<Set<String>>([])
        init(serving: Bool) { self.serving = serving }
        func mark() -> Int { marks.withLock { $0 += 1; return $0 } }
        var isServing: Bool { serving }
        func followTransfer(since mark: Int, names: Set<String>, device: String, timeout: Duration,
                            progress: @escaping @Sendable (UInt64, UInt32) -> Void) async -> (DeviceDelivery, String?) {
            asked.withLock { $0 = names }
            progress(7, 40)
            return (.delivered, nil)
        }
        func cancel(_ view: UInt64) { cancelled.withLock { $0.append(view) } }
    }

    /// The names a followed job is matched by: each path's last component, found in its bytes.
    @Test func aFollowedSendIsKnownByItsFilesNames() {
        typealias Sender = DeviceShareSender<Jobs>
        #expect(Sender.names(["/run/user/1000/schemebridge/outbox/3f/beach.png", "notes.txt", "/home/u/Ünïcödé ❤️/été.pdf"])
                == ["beach.png", "notes.txt", "été.pdf"])
        #expect(Sender.names(["/a/b/", "/", ""]) == ["b", ""])
        // A combining mark after a "/" makes one character of both: a path's components are its bytes'.
        #expect(Sender.names(["/tmp/x/\u{301}name"]) == ["\u{301}name"])
    }

    @Test func sendsGoInOrderAndOnlyTheFollowedEnginesFilesAreFollowed() async throws {
        let engine = Engine("kdeconnect"), jobs = Jobs(serving: true)
        let sender = DeviceShareSender(sender: engine, jobs: jobs, followedEngine: "kdeconnect")
        let (receipt, mark) = try await sender.send([.files(["/a/x.png", "/b/y.txt"]), .text("t")], to: "phone1")
        #expect(receipt == DeviceSendReceipt(device: "phone1", deviceName: "Phone", engine: "kdeconnect"))
        #expect(mark == 1, "followed from before the files were handed over")
        #expect(engine.sent.withLock { $0 } == [.files(["/a/x.png", "/b/y.txt"]), .text("t")])
        #expect(try await sender.send([.url("u:x")], to: "phone1").1 == nil, "no files, nothing to follow")
        #expect(try await DeviceShareSender(sender: Engine("gsconnect"), jobs: jobs, followedEngine: "kdeconnect").send([.files(["/a"])], to: "p").1 == nil)
        #expect(try await DeviceShareSender(sender: engine, jobs: Jobs(serving: false), followedEngine: "kdeconnect").send([.files(["/a"])], to: "p").1 == nil)
        await #expect(throws: ServiceFailure(.launchFailed, "nothing to send")) { try await sender.send([], to: "phone1") }

        let shown = Kept<UInt32>()
        let cancel = TransferCancel { jobs.cancel($0) }
        let ended = await sender.follow(since: 1, files: ["/a/x.png", "/b/y.txt"], device: "Phone", timeout: .seconds(5), cancel: cancel) { view, percent in
            shown.append(percent)
        }
        #expect(ended.0 == .delivered && ended.1 == nil)
        #expect(jobs.asked.withLock { $0 } == ["x.png", "y.txt"] && shown.values == [40])
        #expect(jobs.cancelled.withLock { $0 }.isEmpty, "nobody gave up")
        cancel.request()
        cancel.request()
        #expect(jobs.cancelled.withLock { $0 } == [7], "cancelled once the caller gave up, once")
    }

    @Test func aFollowedTransferShowsItsProgressAndLogsItsEnd() async throws {
        let jobs = Jobs(serving: true), server = Notifications(), lines = Lines()
        let sender = DeviceShareSender(sender: Engine("kdeconnect"), jobs: jobs, followedEngine: "kdeconnect")
        let (cancel, ended) = sender.transfer(since: 1, files: ["/x/b.png", "/y/a.png"], device: "Phone", timeout: .seconds(5), progress: server) { failed, line in
            lines.append("\(failed ? "failed" : "ok"): \(line())")
        }
        let (delivery, reason) = await ended.value
        #expect(delivery == .delivered && reason == nil)
        #expect(lines.values == ["ok: the transfer to Phone: delivered"])
        #expect(await waitUntil(timeout: .seconds(10)) { server.state.withLock { $0.shown.count } == 2 } != nil)
        #expect(server.state.withLock { $0.shown.map { $0.body } } == ["a.png, b.png: 40%", "a.png, b.png: sent"])
        cancel.request()
        #expect(jobs.cancelled.withLock { $0 } == [7], "the job's view is known from its progress")
    }

    @Test func aCancelWaitsForTheJobsView() {
        let cancelled = Kept<UInt64>()
        let cancel = TransferCancel { view in cancelled.append(view) }
        cancel.request()
        #expect(cancelled.values.isEmpty, "no view yet")
        cancel.following(3)
        cancel.following(4)
        #expect(cancelled.values == [3])
    }

    @Test func aTransferThatDidNotArriveFailsOrTimesOut() {
        #expect(DeviceDeliveryRule.failure(.delivered, nil) == nil && DeviceDeliveryRule.failure(.handedToEngine, "why") == nil)
        #expect(DeviceDeliveryRule.failure(.failed, "cancelled")?.timedOut == false && DeviceDeliveryRule.failure(.failed, "cancelled")?.message == "cancelled")
        #expect(DeviceDeliveryRule.failure(.unknown, "late")?.timedOut == true)
        #expect(DeviceDeliveryRule.failure(.unknown, nil) == nil)
    }

    /// A notification server: each notification (its replacing id, body, percent) recorded;
    /// `clickFirst` clicks the first one's Cancel before its `Notify` answer is read.
    final class Notifications: TransferProgressPort, @unchecked Sendable {
        struct State {
            var shown: [(replacing: UInt32, summary: String, body: String, percent: UInt32?)] = []
            var cancelled: [UInt64] = []
            var clicked: (@Sendable (UInt32) -> Void)?
        }
        let state = Mutex(State())
        let clickFirst: Bool
        init(clickFirst: Bool = false) { self.clickFirst = clickFirst }

        func notify(replacing: UInt32, summary: String, body: String, percent: UInt32?) async -> UInt32? {
            let (id, click) = state.withLock { s -> (UInt32, (@Sendable (UInt32) -> Void)?) in
                s.shown.append((replacing, summary, body, percent))
                return (replacing == 0 ? 41 : replacing, s.shown.count == 1 && clickFirst ? s.clicked : nil)
            }
            click?(id)
            return id
        }
        func followCancels(_ clicked: @escaping @Sendable (UInt32) -> Void) async -> Task<Void, Never>? {
            state.withLock { $0.clicked = clicked }
            return nil
        }
        func cancel(view: UInt64) { state.withLock { $0.cancelled.append(view) } }
    }

    @Test func progressIsOneNotificationReplacedUntilItEnds() async throws {
        let server = Notifications()
        let progress = TransferProgress(port: server, device: "Pixel", names: ["a.png", "b.png", "c.png", "d.png"])
        progress.show(view: 5, percent: 10)
        progress.show(view: 5, percent: 60)
        progress.done(.delivered)
        #expect(await waitUntil(timeout: .seconds(10)) { server.state.withLock { $0.shown.count } == 3 } != nil)
        let shown = server.state.withLock { $0.shown }
        #expect(shown.map { $0.replacing } == [0, 41, 41] && shown.map { $0.percent } == [10, 60, nil])
        #expect(shown.allSatisfy { $0.summary == "Sending to Pixel" })
        #expect(shown.map { $0.body } == ["a.png, b.png, c.png and 1 more: 10%", "a.png, b.png, c.png and 1 more: 60%", "a.png, b.png, c.png and 1 more: sent"])
        #expect(server.state.withLock { $0.cancelled }.isEmpty)

        #expect(TransferProgress<Notifications>.body(files: "a", ended: .unknown) == "a: not finished in time: whether it arrives is unknown")
    }

    @Test func aCancelClickedBeforeNotifyAnsweredCancelsTheJob() async throws {
        let server = Notifications(clickFirst: true)
        let progress = TransferProgress(port: server, device: "Pixel", names: ["a.png"])
        progress.show(view: 9, percent: 1)
        #expect(await waitUntil(timeout: .seconds(10)) { server.state.withLock { $0.cancelled } == [9] } != nil)
        progress.done(.failed)
        #expect(await waitUntil(timeout: .seconds(10)) { server.state.withLock { $0.shown.last?.body } == "a.png: failed" } != nil)
    }
}
