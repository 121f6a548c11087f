import DBus
import DBusTestSupport
import Foundation
import Glibc
import Testing

/// What a device share's `Response` says of the transfer (`delivery`), from what the engine
/// reports of its upload to the KDE job tracker (the service serves `org.kde.kuiserver` and
/// `org.kde.JobViewServer` for it), with a stand-in KDE Connect that reports a job as
/// kdeconnectd 22.12 does (``FakeKDEConnect/Job``). The real engines: `DeviceShareTests`.
@Suite struct DeviceTransferTests {
    /// A fixture with an outbox, a stand-in engine reporting `job`, `config` written first.
    static func world(_ job: FakeKDEConnect.Job?, config: String = "") async throws -> (ServiceFixture, FakeKDEConnect, URL) {
        let fixture = try ServiceFixture(extraEnvironment: ["XDG_CURRENT_DESKTOP": "GNOME"], runtimeDirectory: true)
        if !config.isEmpty { try fixture.writeConfig(config) }
        // The service first (it serves the job tracker's names from its start), then the engine.
        #expect(try await fixture.dbusSend("CanOpenURL", "string:x-none:probe").succeeded, "\(fixture.serviceLog)")
        let engine = try await FakeKDEConnect(address: fixture.bus.address, name: "Phone", answering: true, job: job)
        let listed = await Tools.eventually {
            let targets = try? await Tools.run(["gdbus", "call", "--address", fixture.bus.address, "--dest", ServiceFixture.name, "--object-path", ServiceFixture.path,
                                                "--method", "io.github.schemebridge.Share1.ShareTargets", "['text/plain']"], timeout: .seconds(300))
            return targets?.stdout.contains("'_phone_'") == true
        }
        #expect(listed, "\(fixture.serviceLog.suffix(2000))")
        let file = fixture.root.appendingPathComponent("big.bin")
        try Data(repeating: 7, count: 4096).write(to: file)
        return (fixture, engine, file)
    }

    /// A share without the `delivery` option whose client then waits for `TransferEnded`: its
    /// Response, the signals it got, and how many a second connection overheard.
    static func sendAndFollow(_ fixture: ServiceFixture, _ file: URL) async throws -> (responses: [[String: Any]], ended: [[String: Any]], overheard: Int?, path: String?) {
        let r = try await Tools.run([Tools.systemPython, Clients.path("Share/sharer"), fixture.bus.address, #"[{"file": "\#(file.path)"}]"#, #"{"target": "_phone_"}"#],
                                    environment: Clients.serviceNames.merging(["SB_FOLLOW_TRANSFER": "1"]) { _, new in new })
        #expect(r.status == 0, "\(r.stderr)")
        let out = ShareTests.json(r.stdout)
        return (ShareTests.responses(out), out["ended"] as? [[String: Any]] ?? [], out["overheard"] as? Int, out["path"] as? String)
    }

    static func send(_ fixture: ServiceFixture, _ file: URL, waiting: Bool = true) async throws -> (code: Int?, results: [String: String]) {
        let out = try await ShareTests.share(fixture, #"[{"file": "\#(file.path)"}]"#, waiting ? #"{"target": "_phone_", "delivery": true}"# : #"{"target": "_phone_"}"#)
        let response = ShareTests.responses(out).first
        return (response?["code"] as? Int, response?["results"] as? [String: String] ?? [:])
    }

    /// With the `delivery` option: the engine reports the upload failed: the Response is 2 with
    /// its reason and `delivery` `failed`; reported finished: 0 with `delivered`; an engine that
    /// reports nothing: 0 with `handed-to-engine` (what the engine took, no more). Without it, the
    /// answer comes once the engine took the share.
    @Test func theEnginesReportDecidesTheAnswer() async throws {
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 100, message: "Connection closed by the peer"))
            defer { engine.stop(); fixture.stop() }
            let (code, results) = try await Self.send(fixture, file)
            #expect(code == 2 && results["delivery"] == "failed", "\(results) \(fixture.serviceLog.suffix(2000))")
            #expect(results["error-name"] == "io.github.schemebridge.SchemeBridge1.Error.LaunchFailed", "\(results)")
            #expect(results["error-message"] == "KDE Connect reported the transfer to Phone failed: Connection closed by the peer", "\(results)")
            #expect(results["device"] == "_phone_" && results["engine"] == "kdeconnect", "\(results)")
            #expect(engine.calls.list.withLock { $0.contains("requiresJobTracker false") })
        }
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 0, message: ""))
            defer { engine.stop(); fixture.stop() }
            let (code, results) = try await Self.send(fixture, file)
            #expect(code == 0 && results == ["target": "_phone_", "device": "_phone_", "engine": "kdeconnect", "delivery": "delivered"],
                    "\(results) \(fixture.serviceLog.suffix(2000))")
        }
        do {
            let (fixture, engine, file) = try await Self.world(nil)
            defer { engine.stop(); fixture.stop() }
            let (code, results) = try await Self.send(fixture, file)
            #expect(code == 0 && results["delivery"] == "handed-to-engine", "\(results)")
        }
        // A caller that does not ask for the delivery is answered once the engine took the share.
        do {
            let (fixture, engine, file) = try await Self.world(.runs)
            defer { engine.stop(); fixture.stop() }
            let (code, results) = try await Self.send(fixture, file, waiting: false)
            #expect(code == 0 && results["delivery"] == "handed-to-engine", "\(results)")
        }
    }

    /// The grace for a job view: kdeconnectd's tracker asks for one only for a job still running
    /// half a second after it started — after the share was answered — and the waiting caller
    /// learns how that upload ended (`delivered`), not `handed-to-engine`. Shares followed at once
    /// (one sleeper wakes them all: a share made while another is followed arms no timer) each
    /// end at their own deadlines: two at once that the engine reports nothing of are both answered
    /// `handed-to-engine`, not left to `[Devices] Timeout`.
    @Test func aViewThatComesLateIsFollowedAndSharesFollowedAtOnceEachEnd() async throws {
        do {
            let (fixture, engine, file) = try await Self.world(.endsLate)
            defer { engine.stop(); fixture.stop() }
            let (code, results) = try await Self.send(fixture, file)
            #expect(code == 0 && results["delivery"] == "delivered", "\(results) \(engine.calls.list.withLock { $0 }) \(fixture.serviceLog.suffix(2000))")
        }
        do {
            let (fixture, engine, file) = try await Self.world(nil, config: "[Devices]\nTimeout=60\n")
            defer { engine.stop(); fixture.stop() }
            let second = fixture.root.appendingPathComponent("second.bin")
            try Data(repeating: 8, count: 4096).write(to: second)
            async let one = Self.send(fixture, file)
            async let two = Self.send(fixture, second)
            let answers = try await [one, two]
            for (code, results) in answers {
                #expect(code == 0 && results["delivery"] == "handed-to-engine", "\(answers) \(fixture.serviceLog.suffix(2000))")
            }
        }
    }

    /// A caller that did not wait is answered once the engine took the share, and then told how
    /// the transfer ended by `TransferEnded` — sent to it alone: a second connection listening
    /// for the signal hears nothing.
    @Test func aCallerThatDidNotWaitLearnsTheEndFromTransferEnded() async throws {
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 0, message: ""))
            defer { engine.stop(); fixture.stop() }
            let (responses, ended, overheard, path) = try await Self.sendAndFollow(fixture, file)
            #expect(responses.count == 1 && responses.first?["code"] as? Int == 0, "\(responses) \(fixture.serviceLog.suffix(2000))")
            #expect((responses.first?["results"] as? [String: String])?["delivery"] == "handed-to-engine", "\(responses)")
            #expect(ended.count == 1 && ended.first?["request"] as? String == path && ended.first?["delivery"] as? String == "delivered", "\(ended)")
            #expect(ended.first?["details"] as? [String: String] == ["target": "_phone_", "device": "_phone_", "engine": "kdeconnect"], "\(ended)")
            #expect(overheard == 0)
        }
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 100, message: "Connection closed by the peer"))
            defer { engine.stop(); fixture.stop() }
            let (responses, ended, overheard, _) = try await Self.sendAndFollow(fixture, file)
            #expect(responses.first?["code"] as? Int == 0, "\(responses) \(fixture.serviceLog.suffix(2000))")
            let details = ended.first?["details"] as? [String: String] ?? [:]
            #expect(ended.count == 1 && ended.first?["delivery"] as? String == "failed", "\(ended)")
            #expect(details["error-name"] == "io.github.schemebridge.SchemeBridge1.Error.LaunchFailed", "\(details)")
            #expect(details["error-message"] == "KDE Connect reported the transfer to Phone failed: Connection closed by the peer", "\(details)")
            #expect(overheard == 0)
        }
    }

    /// At the default log level a device share that arrives writes no line (its `Response` and
    /// `TransferEnded` report it; its lines are debug-level), and one that fails still does, at notice.
    @Test func aDeviceShareIsLoggedOnlyWhenItFailsAtTheDefaultLevel() async throws {
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 0, message: ""))
            defer { engine.stop(); fixture.stop() }
            let (responses, ended, _, _) = try await Self.sendAndFollow(fixture, file)
            #expect(responses.first?["code"] as? Int == 0 && ended.first?["delivery"] as? String == "delivered", "\(responses) \(ended)")
            // Its lines come before `TransferEnded`, which the test waited for: the share's right after its Response (not before
            // it: a caller that does not wait is answered first), the transfer's end before that signal is sent.
            let log = fixture.serviceLog
            #expect(!log.contains("shares 1 item") && !log.contains("shared 1 item") && !log.contains("the transfer to Phone"), "\(log.suffix(2000))")
        }
        do {
            let (fixture, engine, file) = try await Self.world(.ends(code: 100, message: "Connection closed by the peer"))
            defer { engine.stop(); fixture.stop() }
            let (_, ended, _, _) = try await Self.sendAndFollow(fixture, file)
            #expect(ended.first?["delivery"] as? String == "failed", "\(ended)")
            #expect(await Tools.eventually { fixture.serviceLog.contains("the transfer to Phone: failed") }, "\(fixture.serviceLog.suffix(2000))")
        }
    }

    /// `schemebridge share --wait` to a device, stopped by Ctrl-C while the file is on its way:
    /// the CLI leaves the bus with its request unanswered, and the transfer is cancelled (the
    /// engine gets `cancelRequested` and ends the job) — not left running with nobody waiting.
    @Test func ctrlCOnAWaitingShareCancelsTheTransfer() async throws {
        let (fixture, engine, file) = try await Self.world(.endsWhenCancelled)
        defer { engine.stop(); fixture.stop() }
        let cli = try Tools.spawn([try Built.executable("schemebridge"), "share", "--to", "_phone_", "--wait", file.path],
                                  environment: ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address, "XDG_ACTIVATION_TOKEN": "", "DESKTOP_STARTUP_ID": ""])
        defer { cli.terminate() }
        #expect(await Tools.eventually { engine.calls.list.withLock { $0.contains("updated") } }, "\(engine.calls.list.withLock { $0 }) \(fixture.serviceLog.suffix(2000))")
        cli.signal(SIGINT)
        _ = await cli.wait()
        #expect(await Tools.eventually { engine.calls.list.withLock { $0.contains("terminate 1") } },
                "\(engine.calls.list.withLock { $0 }) \(fixture.serviceLog.suffix(2000))")
        #expect(engine.calls.list.withLock { $0.contains("cancelRequested") })
    }

    /// A transfer still running when `[Devices] Timeout` runs out is `unknown`: code 2 `Timeout`,
    /// never success — and it is answered then, not later.
    @Test func aTransferStillRunningAfterTheTimeoutIsUnknown() async throws {
        let (fixture, engine, file) = try await Self.world(.runs, config: "[Devices]\nTimeout=2\n")
        defer { engine.stop(); fixture.stop() }
        let start = ContinuousClock.now
        let (code, results) = try await Self.send(fixture, file)
        #expect(code == 2 && results["delivery"] == "unknown", "\(results) \(fixture.serviceLog.suffix(2000))")
        #expect(results["error-name"] == "io.github.schemebridge.SchemeBridge1.Error.Timeout", "\(results)")
        #expect(results["error-message"]?.contains("40% sent") == true, "\(results)")
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    /// The transfer's progress is a notification with its percentage and a Cancel action; the
    /// user's Cancel asks the engine to cancel the job (`cancelRequested`), and the answer says
    /// it was cancelled.
    @Test func progressIsANotificationWhoseCancelStopsTheTransfer() async throws {
        let (fixture, engine, file) = try await Self.world(.endsWhenCancelled)
        defer { engine.stop(); fixture.stop() }
        let log = fixture.root.appendingPathComponent("notifications.log")
        let server = try Tools.spawn(Clients.command("Share/progress-notifications", [fixture.bus.address, log.path, "cancel"]))
        defer { server.terminate() }
        #expect(await Tools.eventually {
            let r = try? await Tools.run(["dbus-send", "--bus=\(fixture.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.Notifications"])
            return r?.stdout.contains("boolean true") == true
        })
        let (code, results) = try await Self.send(fixture, file)
        #expect(code == 2 && results["delivery"] == "failed" && results["error-message"] == "the transfer to Phone was cancelled",
                "\(results) \(fixture.serviceLog.suffix(2000))")
        #expect(engine.calls.list.withLock { $0.contains("cancelRequested") })
        // The last notification (how it ended) is shown by a task of its own: the answer can come first.
        var shown: [[String: Any]] = []
        _ = await Tools.eventually {
            shown = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map { ShareTests.json(String($0)) }
            return shown.contains { ($0["body"] as? String)?.hasSuffix("%") == false }
        }
        #expect(shown.first?["summary"] as? String == "Sending to Phone" && shown.first?["value"] as? Int == 40, "\(shown)")
        #expect(shown.first?["body"] as? String == "big.bin: 40%" && shown.first?["actions"] as? [String] == ["cancel", "Cancel"], "\(shown)")
        #expect(shown.last?["body"] as? String == "big.bin: failed" && shown.last?["id"] as? Int == shown.first?["id"] as? Int, "\(shown)")
    }

    /// The job views an engine asks for are bounded and go with it: past the 256 the service
    /// keeps, the oldest view's object goes with its record, and the views an engine left unended
    /// go when it leaves the bus — an engine that never ends its jobs grows nothing without bound.
    @Test func jobViewsAreBoundedAndGoWithTheEngine() async throws {
        let (fixture, engine, _) = try await Self.world(nil)
        defer { engine.stop(); fixture.stop() }
        func views() async throws -> Int {
            let r = try await Tools.run(["gdbus", "introspect", "--address", fixture.bus.address, "--dest", "org.kde.JobViewServer",
                                         "--object-path", "/io/github/schemebridge/JobViews"])
            // None left: no object there, and none below it.
            if r.status != 0, r.stderr.contains("UnknownObject") { return 0 }
            guard r.status == 0 else { throw ToolError("gdbus introspect: \(r.stderr)") }
            return r.stdout.components(separatedBy: "node ").count - 2  // the folder's own node line, then one per view
        }
        for _ in 0..<300 {
            _ = try await engine.connection.call(destination: "org.kde.JobViewServer", path: "/JobViewServer", interface: "org.kde.JobViewServerV2",
                                                 member: "requestView", [.string("org.kde.kdeconnect.daemon"), .int32(1), .vardict([:])],
                                                 timeout: .seconds(30))
        }
        #expect(try await views() == 256, "\(fixture.serviceLog.suffix(2000))")
        engine.stop()
        #expect(await Tools.eventually { (try? await views()) == 0 }, "views left after the engine left")
    }

    /// Only the engine's jobs are followed: another client asking the job tracker's names is told
    /// to keep its own progress dialogs and cannot make a job view.
    @Test func onlyTheEngineReportsJobs() async throws {
        let (fixture, engine, _) = try await Self.world(nil)
        defer { engine.stop(); fixture.stop() }
        let other = try await Connection.connect(address: fixture.bus.address)
        defer { other.close() }
        let required = try await other.call(destination: "org.kde.kuiserver", path: "/JobViewServer", interface: "org.kde.kuiserver",
                                            member: "requiresJobTracker", timeout: .seconds(30))
        #expect(required.first?.bool == true)
        do {
            _ = try await other.call(destination: "org.kde.JobViewServer", path: "/JobViewServer", interface: "org.kde.JobViewServerV2", member: "requestView",
                                     [.string("x.desktop"), .int32(0), .vardict([:])], timeout: .seconds(30))
            Issue.record("another client made a job view")
        } catch {
            #expect(error.name == .accessDenied, "\(error)")
        }
    }
}
