import DBus
import DBusTestSupport
import Foundation
import Glibc
import SchemeBridgeDevices
import Testing

/// Sending to a nearby device and opening what a device sends, with two real KDE Connect engines
/// (``KDEConnectPair``) and our service beside each.
@Suite(.serialized) struct DeviceShareTests {
    /// A 10 MiB file and a text from A reach B byte for byte, and B's SchemeBridge hands each to
    /// B's app for its type, read-only in that app's Inbox. A look-alike `shareReceived` sent by
    /// another client is not opened; a device that goes away is no target; with the engine gone
    /// there are none. The engines have KDE Connect 23.08's receiving fix (``KDEConnectReceivingFix``):
    /// every file must arrive, the first time.
    @Test(.timeLimit(.minutes(15))) func fileAndTextFromAArriveOnBAndOpenInBsApps() async throws {
        let pair = try await KDEConnectPair(receivingFix: true) { b in
            let files = try b.recorder("files")
            let texts = try b.recorder("texts")
            try b.entry("org.example.Files.desktop", "Name=Files\nExec=\(files) %f\nMimeType=application/octet-stream;")
            try b.entry("org.example.Notes.desktop", "Name=Notes\nExec=\(texts) %f\nMimeType=text/plain;")
            try b.writeConfig("[Devices]\nOpenReceived=default\n")
        }
        defer { pair.stop() }
        let (a, b) = (pair.a, pair.b)
        try await pair.startAndPair()
        // B's service starts (bus activation) and follows B's engine.
        #expect(try await b.fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded, "\(b.fixture.serviceLog)")

        // A's side: the typed client follows A's engine and sees B as a share target, live.
        let engine = KDEConnectEngine(connection: a.connection)
        try await engine.start()
        defer { engine.stop() }
        var targets: [NearbyDevice] = []
        for await list in engine.shareTargetChanges() {
            targets = list
            if list.contains(where: { $0.id == b.id }) { break }
        }
        #expect(targets.map(\.name) == ["sideB"] && targets.first?.sendTitle == "Send to sideB")

        // A forged shareReceived (another client, not the engine) naming a file of B's: ignored.
        let secret = b.fixture.root.appendingPathComponent("secret.bin")
        try Data("not for the handler".utf8).write(to: secret)
        let forger = try await Connection.connect(address: b.fixture.bus.address)
        // Sent to the service alone: a unicast signal reaches it whatever its match rules say.
        let service = try BusName(try await BusDriver(forger).nameOwner("io.github.schemebridge.SchemeBridge1"))
        try forger.emit(path: try ObjectPath("/modules/kdeconnect/devices/\(a.id)/share"), interface: "org.kde.kdeconnect.device.share",
                        member: "shareReceived", [.string("file://" + secret.path)], destination: service)

        // A's SchemeBridge lists B as a share target of kind device, live.
        let listed = await Tools.eventually {
            let r = try? await Tools.run(["gdbus", "call", "--address", a.fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                          "--method", "io.github.schemebridge.Share1.ShareTargets", "['application/octet-stream']"])
            return r?.stdout.contains("('\(b.id)', 'Send to sideB', 'computer', 'device')") == true
        }
        #expect(listed, "\(a.fixture.serviceLog.suffix(2000))")
        let list = try await Tools.run([try Built.executable("schemebridge"), "share", "--list", "application/octet-stream"],
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": a.fixture.bus.address])
        #expect(list.stdout.split(separator: "\n").contains("\(b.id)\tSend to sideB\tcomputer\tdevice"), "\(list.stdout) \(list.stderr)")

        // A 10 MiB file from A, through A's SchemeBridge: Share with target = B's device id.
        let payload = a.fixture.root.appendingPathComponent("payload.bin")
        var bytes = [UInt8](repeating: 0, count: 10 << 20)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }
        try Data(bytes).write(to: payload)
        let out = try await ShareTests.share(a.fixture, #"[{"file": "\#(payload.path)"}]"#, #"{"target": "\#(b.id)"}"#)
        let response = ShareTests.responses(out).first
        #expect(response?["code"] as? Int == 0, "\(out) \(a.fixture.serviceLog.suffix(2000))")
        // A's engine reports its upload to A's service (the KDE job tracker's names): a transfer
        // still running half a second after it started is followed to its end ("delivered");
        // a quicker one ends before the engine reports it ("handed-to-engine").
        var results = response?["results"] as? [String: String] ?? [:]
        let delivery = results.removeValue(forKey: "delivery")
        #expect(results == ["target": b.id, "device": b.id, "engine": "kdeconnect"], "\(out)")
        #expect(delivery == "delivered" || delivery == "handed-to-engine", "\(out)")
        // The engines move the file themselves (TLS over the veth pair). The file must arrive the
        // first time: no second share (a user meets the first). When it does not, the message
        // tells whether B's engine announced it (what B's service follows) and what B's downloads hold.
        let received = await b.fixture.recordedArgv("files")
        let argv = try #require(received, "B's handler never ran (downloads: \(Self.downloads(b))): \(b.fixture.serviceLog.suffix(3000)) \(b.engineLog.suffix(3000)) A's engine: \(a.engineLog.suffix(2000))")
        let inboxCopy = try #require(argv.last)
        #expect(inboxCopy.contains("/Inbox/") || inboxCopy.contains("/inbox/"), "\(argv)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inboxCopy)) == Data(bytes), "the Inbox copy differs from what A sent")
        #expect(try Data(contentsOf: b.downloads.appendingPathComponent("payload.bin")) == Data(bytes))
        #expect(access(inboxCopy, W_OK) != 0 || geteuid() == 0)
        var st = stat()
        #expect(stat(inboxCopy, &st) == 0 && st.st_mode & 0o222 == 0, "the Inbox copy is writable")
        #expect(b.fixture.recordedEnv("files").contains("source=org.kde.kdeconnect.daemon"))
        // An unsandboxed caller's own file went by its path: nothing was copied into A's outbox.
        let outbox = a.scratch + "-run/schemebridge/outbox"
        #expect(Self.outboxFiles(outbox).isEmpty, "\(Self.outboxFiles(outbox))")

        // A file shared under another name, and a memfd: both copied into the outbox (under the
        // items' names) and sent from there, arriving byte for byte.
        let other = a.fixture.root.appendingPathComponent("other.bin"), memo = a.fixture.root.appendingPathComponent("memo-source.bin")
        let otherBytes = Array(bytes[..<(1 << 20)].reversed()), memoBytes = Array(bytes[(1 << 20)..<(3 << 19)])
        try Data(otherBytes).write(to: other)
        try Data(memoBytes).write(to: memo)
        let copied = try await ShareTests.share(a.fixture, #"[{"file": "\#(other.path)", "name": "renamed.bin"}, {"memfd": "\#(memo.path)", "name": "memo.bin"}]"#,
                                                #"{"target": "\#(b.id)"}"#)
        #expect(ShareTests.responses(copied).first?["code"] as? Int == 0, "\(copied) \(a.fixture.serviceLog.suffix(2000))")
        #expect(Self.outboxFiles(outbox).sorted() == ["memo.bin", "renamed.bin"], "\(Self.outboxFiles(outbox))")
        // Each must arrive whole the first time (no second share). When one does not, the message
        // says whether it was whole in A's outbox (what is ours) and what B's downloads hold. (Two
        // files in one share are what Debian's engine, receiving, loses most: docs/GUIDE.md.)
        func arrivedWhole(_ name: String, _ expected: [UInt8]) -> Bool {
            let stem = String(name.prefix { $0 != "." })
            let names = (try? FileManager.default.contentsOfDirectory(atPath: b.downloads.path)) ?? []
            return names.contains { $0.hasPrefix(stem) && !$0.hasSuffix(".part")
                && (try? Data(contentsOf: b.downloads.appendingPathComponent($0))) == Data(expected) }
        }
        for (name, expected) in [("renamed.bin", otherBytes), ("memo.bin", memoBytes)] {
            let arrived = await Tools.eventually { arrivedWhole(name, expected) }
            if !arrived {
                let inOutbox = (FileManager.default.subpaths(atPath: outbox) ?? []).filter { URL(fileURLWithPath: $0).lastPathComponent == name }
                #expect(inOutbox.contains { FileManager.default.contents(atPath: outbox + "/" + $0) == Data(expected) }, "\(name) in A's outbox is not what A shared")
                Issue.record("\(name) did not arrive on B intact (downloads: \(Self.downloads(b))): \(b.engineLog.suffix(2000))")
                return
            }
        }

        // A text from A: B opens it with its text/plain app — once B's service has closed the
        // transfer of the two files (a text within 2 s of them would be part of it: one transfer,
        // its folder opened, docs/GUIDE.md "What is one transfer").
        #expect(await Tools.eventually { ReceivedNotificationTests.offered(b.fixture.serviceLog) >= 3 }, "\(b.fixture.serviceLog.suffix(3000))")
        let text = "hello from side A, äöü ✓ \(getpid())"
        let textOut = try await ShareTests.share(a.fixture, #"[{"text": "\#(text)"}]"#, #"{"target": "\#(b.id)"}"#)
        #expect(ShareTests.responses(textOut).first?["code"] as? Int == 0, "\(textOut)")
        let textArgv = try #require(await b.fixture.recordedArgv("texts"), "B's text handler never ran: \(b.fixture.serviceLog.suffix(3000))")
        #expect(try String(contentsOfFile: try #require(textArgv.last), encoding: .utf8) == text)
        // The forged signal opened nothing: B's Inboxes hold what A sent, and no secret.bin.
        let inboxes = b.fixture.dataHome.appendingPathComponent("schemebridge/inbox").path
        let copies = (FileManager.default.subpaths(atPath: inboxes) ?? []).filter { !$0.hasSuffix("/") && $0.contains(".") }
        #expect(!copies.contains { $0.hasSuffix("secret.bin") }, "\(copies)")
        #expect(copies.contains { $0.hasSuffix("payload.bin") }, "\(copies)")
        forger.close()

        // B goes away: A's engine drops it, and a share to it finds no target (at once, before any request).
        await pair.stopEngine(b)
        for await list in engine.shareTargetChanges() where !list.contains(where: { $0.id == b.id }) { break }
        await #expect(throws: ServiceFailure.self) { _ = try await engine.send(.text("x"), to: b.id) }
        _ = await Tools.eventually {
            let gone = try? await ShareTests.share(a.fixture, #"[{"text": "x"}]"#, #"{"target": "\#(b.id)"}"#)
            return gone?["error"] as? String == "io.github.schemebridge.SchemeBridge1.Error.NoTarget"
        }
        let gone = try await ShareTests.share(a.fixture, #"[{"text": "x"}]"#, #"{"target": "\#(b.id)"}"#)
        #expect(gone["error"] as? String == "io.github.schemebridge.SchemeBridge1.Error.NoTarget", "\(gone)")

        // A's engine stops: no targets, and sending says KDE Connect is not running.
        await pair.stopEngine(a)
        _ = await Tools.eventually { !engine.isRunning }
        do {
            _ = try await engine.send(.text("x"), to: b.id)
            Issue.record("a share without an engine succeeded")
        } catch {
            #expect(error.kind == .noTarget && error.message.contains("not running"), "\(error)")
        }
        #expect(engine.shareTargets.isEmpty)
    }

    /// Twenty files in a row, sizes mixed from 1 byte to 10 MiB, each shared from A through A's
    /// SchemeBridge as a user does (`schemebridge share --to <B> --wait FILE`): every one arrives
    /// on B whole, the first time (no share is repeated), B's engine announcing it — beside two
    /// CPU hogs too. Each share follows the arrival of the one before. The engines are Debian's
    /// `kdeconnectd` 22.12 with KDE Connect 23.08's receiving fix (``KDEConnectReceivingFix``):
    /// without it the receiving engine loses, now and then, a file whose data arrived in full
    /// before it began storing it, and every later file from that device waits behind it
    /// (docs/GUIDE.md, "When a file does not arrive") — the engine's stall, which the test below
    /// shows on Debian's engine as it is.
    @Test(.timeLimit(.minutes(20)))
    func twentyFilesInARowArriveWholeTheFirstTime() async throws {
        try await Self.twentyFilesInARow(receivingFix: true)
    }

    /// The same on Debian's `kdeconnectd` 22.12 as it is. Runs only with `SB_ENGINE_STALLS=1`: the
    /// receiving engine's race catches a file sent on its own now and then (beside two CPU hogs,
    /// 3 runs of 20 arrived whole; in a 4th, with another suite beside it, the first file, 1 byte,
    /// stayed an empty `.part`), so it fails on the engine; it shows when the engine no longer stalls.
    @Test(.timeLimit(.minutes(20)), .enabled(if: ProcessInfo.processInfo.environment["SB_ENGINE_STALLS"] != nil,
                                             "kdeconnectd 22.12 receiving loses a file now and then: docs/GUIDE.md"))
    func twentyFilesInARowArriveWholeTheFirstTimeOnDebiansEngine() async throws {
        try await Self.twentyFilesInARow(receivingFix: false)
    }

    static func twentyFilesInARow(receivingFix: Bool) async throws {
        let pair = try await KDEConnectPair(receivingFix: receivingFix)
        defer { pair.stop() }
        let (a, b) = (pair.a, pair.b)
        try await pair.startAndPair()
        let (arrivals, collector) = try await Arrivals.collecting(on: b)
        defer { collector.cancel() }
        let listed = await Tools.eventually {
            let r = try? await Tools.run([try Built.executable("schemebridge"), "share", "--list", "application/octet-stream"],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": a.fixture.bus.address])
            return r?.stdout.contains(b.id) == true
        }
        #expect(listed, "\(a.fixture.serviceLog.suffix(2000))")

        let mib = 1 << 20, kib = 1 << 10
        let sizes: [Int] = [1, 10 * mib, kib, 5 * mib, 700 * kib, 10 * mib, 64 * kib, 3 * mib, 4095, 10 * mib,
                            2 * mib, 100, 8 * mib, 256 * kib, 10 * mib, mib, 6 * mib, 12_345, 9 * mib, 10 * mib]
        var noise = [UInt8](repeating: 0, count: (10 << 20) + 20 * 4099)
        var x: UInt32 = 0x9E37_79B9
        for i in noise.indices { x ^= x << 13; x ^= x >> 17; x ^= x << 5; noise[i] = UInt8(truncatingIfNeeded: x) }
        let clock = ContinuousClock()
        var report: [String] = []
        for (n, size) in sizes.enumerated() {
            let name = "row\(n + 1).bin"
            let bytes = Data(noise[(n * 4099)..<(n * 4099 + size)])
            let file = a.fixture.root.appendingPathComponent(name)
            try bytes.write(to: file)
            let start = clock.now
            let out = try await Tools.run([try Built.executable("schemebridge"), "share", "--to", b.id, "--wait", file.path],
                                          environment: ["DBUS_SESSION_BUS_ADDRESS": a.fixture.bus.address], timeout: .seconds(300))
            #expect(out.succeeded && out.stdout.contains("status=success") && out.stdout.contains("engine=kdeconnect"), "\(name): \(out.stdout) \(out.stderr)")
            let url = "file://" + b.downloads.appendingPathComponent(name).path
            let arrived = await Tools.eventually { arrivals.list.withLock { $0.contains(url) } }
            let took = clock.now - start
            let part = (try? FileManager.default.attributesOfItem(atPath: b.downloads.appendingPathComponent(name + ".part").path)[.size] as? Int).map { "\($0) bytes" } ?? "none"
            report.append("\(name) \(size) bytes: \(arrived ? "arrived" : "NOT arrived (.part: \(part))") after \(took)")
            let story = report.joined(separator: "\n")
            try #require(arrived, "\(name) (\(size) bytes, file \(n + 1) of 20) did not arrive on B within \(Tools.eventCeiling):\n\(story)\nB's engine: \(b.engineLog.suffix(3000))\nA's engine: \(a.engineLog.suffix(1500))")
            #expect(try Data(contentsOf: b.downloads.appendingPathComponent(name)) == bytes, "\(name) differs from what A sent")
        }
        if receivingFix { #expect(b.engineLog.contains(KDEConnectReceivingFix.logLine), "B's engine ran without the fix: \(b.engineLog.suffix(2000))") }
        print("DeviceShareTests: 20 files in a row\(receivingFix ? " (the receiving fix)" : "")\n" + report.joined(separator: "\n"))
    }

    /// B's engine stops mid-file: the caller waiting on `schemebridge share --wait` is told the
    /// transfer failed (A's engine reports its upload ended with an error) or is unknown (no end
    /// within `[Devices] Timeout`, 60 s here) — never success — and within that time. B's engine
    /// is killed once A's progress notification for the 400 MiB file is up (A's engine reports a
    /// job only when it still runs half a second after it started: one that fails sooner is
    /// never reported, and the answer is `handed-to-engine`).
    @Test(.timeLimit(.minutes(15))) func aTransferStoppedMidFileIsReportedFailedOrUnknown() async throws {
        let pair = try await KDEConnectPair()
        defer { pair.stop() }
        let (a, b) = (pair.a, pair.b)
        try a.fixture.writeConfig("[Devices]\nTimeout=60\n")
        // A's service runs before its engine makes any job (it serves the job tracker's names).
        #expect(try await a.fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded, "\(a.fixture.serviceLog)")
        let log = a.fixture.root.appendingPathComponent("notifications.log")
        let server = try Tools.spawn(Clients.command("Share/progress-notifications", [a.fixture.bus.address, log.path]))
        defer { server.terminate() }
        try await pair.startAndPair()
        let cli = try Built.executable("schemebridge")
        let env = ["DBUS_SESSION_BUS_ADDRESS": a.fixture.bus.address]
        #expect(await Tools.eventually {
            (try? await Tools.run([cli, "share", "--list", "application/octet-stream"], environment: env))?.stdout.contains(b.id) == true
        }, "\(a.fixture.serviceLog.suffix(2000))")
        let big = a.fixture.root.appendingPathComponent("big.bin")
        let size = 400 << 20
        try KDEConnectPair.writeBigFile(big, size: size)
        let clock = ContinuousClock()
        let start = clock.now
        async let sent = Tools.run([cli, "share", "--to", b.id, "--wait", big.path], environment: env, timeout: .seconds(300))
        let progress = await Tools.eventually { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Sending to sideB") }
        #expect(progress, "no progress notification on A: \(a.fixture.serviceLog.suffix(2000))")
        b.engine?.signal(SIGKILL)
        let out = try await sent
        let took = clock.now - start
        let whole = (try? FileManager.default.attributesOfItem(atPath: b.downloads.appendingPathComponent("big.bin").path)[.size] as? Int) ?? nil
        #expect(whole != size, "the whole file arrived before B's engine was stopped: the test proves nothing")
        #expect(!out.stdout.contains("status=success"), "\(out.stdout) \(out.stderr)")
        #expect(out.stdout.contains("delivery=failed") || out.stdout.contains("delivery=unknown"), "\(out.stdout) \(out.stderr) \(a.fixture.serviceLog.suffix(2000))")
        #expect(took < .seconds(60 + 30), "answered after \(took)")
        let shown = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(shown.first?.contains("\"value\": ") == true && shown.first?.contains("\"actions\": [\"cancel\", \"Cancel\"]") == true, "\(shown)")
        print("DeviceShareTests: B's engine stopped mid-file: \(out.stdout.split(separator: "\n").joined(separator: " ")) after \(took); notifications: \(shown.joined(separator: " | "))")
    }

    /// The files in outbox `directory` (their names), none when it does not exist.
    /// What `side`'s Downloads hold, `name (size)` each: a failure's message shows a `.part`.
    static func downloads(_ side: KDEConnectPair.Side) -> String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: side.downloads.path)) ?? []).sorted()
        return names.map { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: side.downloads.appendingPathComponent(name).path)[.size] as? Int) ?? nil
            return "\(name) (\(size.map(String.init) ?? "?"))"
        }.joined(separator: ", ")
    }

    static func outboxFiles(_ directory: String) -> [String] {
        let all = FileManager.default.subpaths(atPath: directory) ?? []
        return all.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.map { URL(fileURLWithPath: $0).lastPathComponent }
    }

    /// Without an engine on the bus the client lists nothing and every share is NoTarget, at once.
    @Test func noEngineMeansNoTargetsAndAClearError() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try await Connection.connect(address: bus.address)
        defer { connection.close() }
        let engine = KDEConnectEngine(connection: connection)
        try await engine.start()
        defer { engine.stop() }
        #expect(engine.shareTargets.isEmpty && !engine.isRunning)
        do {
            _ = try await engine.send(.files(["/etc/hostname"]), to: "_abc_")
            Issue.record("sent without an engine")
        } catch {
            #expect(error == ServiceFailure(.noTarget, "KDE Connect is not running (no org.kde.kdeconnect on the session bus): there are no devices to send to"))
        }
    }

    /// What an engine reports as received gets OpenFile's treatment: a FIFO is refused at once
    /// (never waited on), a 10 GiB sparse file is over the Inbox quota, and the next good file
    /// still opens. The engine here is the test owning `org.kde.kdeconnect` on a private bus
    /// through a protected `kdeconnectd` relay (``EngineRelay``), its files in the download folder.
    @Test func aReceivedFIFOOrHugeSparseFileIsRefusedClearlyAndTheNextOneOpens() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        let files = try fixture.recorder("files")
        try fixture.entry("org.example.Files.desktop", "Name=Files\nExec=\(files) %f\nMimeType=application/octet-stream;")
        try fixture.writeConfig("[Devices]\nOpenReceived=default\n")
        let relay = try EngineRelay(.trustedKDEConnect, busAddress: fixture.bus.address)
        defer { relay.remove() }
        let engine = try await Connection.connect(address: relay.address)
        defer { engine.close() }
        let downloads = fixture.root.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        #expect(try await engine.requestName("org.kde.kdeconnect") == .primaryOwner)
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded)
        let fifo = downloads.appendingPathComponent("pipe.bin").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let sparse = downloads.appendingPathComponent("huge.bin").path
        let fd = open(sparse, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 10 << 30) == 0)
        close(fd)
        let good = downloads.appendingPathComponent("good.bin")
        try Data([0, 1, 2, 3, 255]).write(to: good)
        // Each a transfer of its own (a burst would be one, opening its folder once): the next is
        // announced once the service has closed the last (ReceivedNotificationTests has bursts).
        for (n, path) in [fifo, sparse, good.path].enumerated() {
            try engine.emit(path: "/modules/kdeconnect/devices/_phone_/share", interface: "org.kde.kdeconnect.device.share",
                            member: "shareReceived", [.string("file://" + path)])
            #expect(await Tools.eventually { fixture.serviceLog.components(separatedBy: " closed: ").count - 1 == n + 1 }, "\(fixture.serviceLog.suffix(3000))")
        }
        let argv = try #require(await fixture.recordedArgv("files"), "\(fixture.serviceLog.suffix(3000))")
        #expect(argv.last?.hasSuffix("/good.bin") == true, "\(argv)")
        // One at a time, in order: both refusals are logged before the good file opened.
        let log = fixture.serviceLog
        #expect(log.contains("could not open what _phone_ sent: org.freedesktop.DBus.Error.InvalidArgs: only regular files can be opened as documents, not inode/fifo"),
                "\(log.suffix(3000))")
        #expect(log.contains("could not open what _phone_ sent: io.github.schemebridge.SchemeBridge1.Error.QuotaExceeded"), "\(log.suffix(3000))")
        let inbox = fixture.dataHome.appendingPathComponent("schemebridge/inbox/org.example.Files").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox) == ["good.bin"])
    }

    /// A hostile device name is shown cleaned and bounded; a share the engine is still taking when
    /// it stops is answered with code 2 and the reason, and the service stays up.
    @Test func anEngineStoppingMidShareGivesCode2WithTheReason() async throws {
        let run = NSTemporaryDirectory() + "sb-kc-run-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: run) }
        let fixture = try ServiceFixture(extraEnvironment: ["XDG_RUNTIME_DIR": run])
        defer { fixture.stop() }
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "\u{202E}Evil\u{1B}[2J\n" + String(repeating: "A", count: 100_000))
        defer { engine.stop() }
        let targets = try await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                           "--method", "io.github.schemebridge.Share1.ShareTargets", "['text/plain']"], timeout: .seconds(300))
        let shown = "Send to Evil[2J " + String(repeating: "A", count: 55) + "…"  // 64 characters
        #expect(targets.stdout.contains("('_phone_', '\(shown)', 'phone', 'device')"), "\(targets.stdout.prefix(2000)) \(fixture.serviceLog.suffix(2000))")

        let file = fixture.root.appendingPathComponent("notes.txt")
        try Data("for the phone".utf8).write(to: file)
        async let out = ShareTests.share(fixture, #"[{"file": "\#(file.path)"}]"#, #"{"target": "_phone_"}"#)
        #expect(await Tools.eventually { engine.calls.list.withLock { !$0.isEmpty } }, "\(fixture.serviceLog.suffix(2000))")
        let call = engine.calls.list.withLock { $0.first } ?? ""
        // An unsandboxed caller's own file goes to the engine by its path, not copied.
        let resolved = try #require(realpath(file.path, nil).map { p in defer { free(p) }; return String(cString: p) })
        #expect(call.hasPrefix("shareUrl ") && call.contains("\"file://\(resolved)\""), "\(call)")
        #expect(Self.outboxFiles(run + "/schemebridge/outbox").isEmpty)
        engine.stop()
        let response = ShareTests.responses(try await out).first
        #expect(response?["code"] as? Int == 2, "\(String(describing: response))")
        let results = response?["results"] as? [String: String] ?? [:]
        #expect(results["error-name"] == "io.github.schemebridge.SchemeBridge1.Error.LaunchFailed", "\(results)")
        #expect(results["error-message"]?.contains("KDE Connect did not take the share") == true, "\(results)")
        // The service is still there, and with the engine gone the device is no target.
        let again = try await ShareTests.share(fixture, #"[{"text": "x"}]"#, #"{"target": "_phone_"}"#)
        #expect(again["error"] as? String == "io.github.schemebridge.SchemeBridge1.Error.NoTarget", "\(again)")
    }

    /// A share naming a device looks at its files as any share does, however short its path (a
    /// file on a local file system is looked at on the loop thread once the service has resolved
    /// its outbox and Inboxes in a first look on a descriptor thread: ``DeviceFileLook``): a
    /// descriptor that does not allow reading (`O_PATH`, write-only) or is not a regular file (a
    /// socket) is refused before a request exists, and the engine is never called with it; a
    /// readable file goes by its own path, before and after.
    @Test func aDeviceShareStillRefusesWhatCannotBeRead() async throws {
        let run = NSTemporaryDirectory() + "sb-kc-run-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: run) }
        let fixture = try ServiceFixture(extraEnvironment: ["XDG_RUNTIME_DIR": run])
        defer { fixture.stop() }
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true)
        defer { engine.stop() }
        let listed = await Tools.eventually {
            let targets = try? await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                                "--method", "io.github.schemebridge.Share1.ShareTargets", "['text/plain']"], timeout: .seconds(300))
            return targets?.stdout.contains("'_phone_'") == true
        }
        #expect(listed, "\(fixture.serviceLog.suffix(2000))")
        let file = fixture.root.appendingPathComponent("notes.txt")
        try Data("for the phone".utf8).write(to: file)
        let resolved = try #require(realpath(file.path, nil).map { p in defer { free(p) }; return String(cString: p) })
        for round in 1...2 {
            let sent = try await ShareTests.share(fixture, #"[{"file": "\#(file.path)"}]"#, #"{"target": "_phone_"}"#)
            #expect(ShareTests.responses(sent).first?["code"] as? Int == 0, "round \(round): \(sent) \(fixture.serviceLog.suffix(2000))")
            let calls = engine.calls.list.withLock { $0 }
            #expect(calls.count == round && calls.allSatisfy { $0.hasPrefix("shareUrl ") && $0.contains("\"file://\(resolved)\"") }, "\(calls)")
            guard round == 1 else { break }
            for (item, error) in [(#"{"file": "\#(file.path)", "open": "write-only"}"#, ".AccessDenied"), (#"{"file": "\#(file.path)", "open": "path"}"#, ".AccessDenied"),
                                  (#"{"socket": 1}"#, ".InvalidArgs")] {
                let out = try await ShareTests.share(fixture, "[\(item)]", #"{"target": "_phone_"}"#)
                #expect((out["error"] as? String)?.hasSuffix(error) == true && ShareTests.responses(out).isEmpty, "\(item): \(out)")
            }
            #expect(engine.calls.list.withLock { $0.count } == 1, "\(engine.calls.list.withLock { $0 })")
        }
        #expect(Self.outboxFiles(run + "/schemebridge/outbox").isEmpty)
    }

    /// The share is carried out as its reply goes out, so its Response can be ready first — at
    /// once when it fails before any wait (data for a device with no outbox: no
    /// `XDG_RUNTIME_DIR`), or when the engine takes it quickly: the caller still gets the reply
    /// naming the request first, then the Response (a client listening only once it knows the
    /// request's path misses none).
    @Test func aResponseReadyBeforeTheReplyComesAfterIt() async throws {
        let fixture = try ServiceFixture(unsetEnvironment: ["XDG_RUNTIME_DIR"])  // no outbox, even in a desktop session
        defer { fixture.stop() }
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true)
        defer { engine.stop() }
        let listed = await Tools.eventually {
            let targets = try? await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                                "--method", "io.github.schemebridge.Share1.ShareTargets", "['text/plain']"], timeout: .seconds(300))
            return targets?.stdout.contains("'_phone_'") == true
        }
        #expect(listed, "\(fixture.serviceLog.suffix(2000))")
        let file = fixture.root.appendingPathComponent("notes.txt")
        try Data("for the phone".utf8).write(to: file)
        for round in 1...5 {
            for (item, code) in [(file.path, 0), ("data:\u{1}\u{2}", 2)] {
                let r = try await Tools.run([Tools.systemPython, Clients.path("Share/ordered"), fixture.bus.address, item, "_phone_"],
                                            environment: Clients.serviceNames, timeout: .seconds(300))
                let out = ShareTests.json(r.stdout)
                #expect(out["order"] as? [String] == ["reply", "response"] && out["code"] as? Int == code, "round \(round), \(item): \(r.stdout) \(r.stderr)")
            }
        }
        #expect(engine.calls.list.withLock { $0.count } == 5)
    }
}
