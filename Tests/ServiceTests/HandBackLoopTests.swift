import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// Loop safety at run time (issue 12, item 6): a handler whose command looks innocent (a script
/// file) hands the URL back — it runs `xdg-open "$1"` while SchemeBridge's own entry is the
/// xdg default for the scheme, so `schemebridge open URL` asks the service again. One `OpenURL`
/// must end with one launch and a clear error, not a launch storm.
@Suite struct HandBackLoopTests {
    @Test func aHandlerThatHandsTheURLBackIsLaunchedOnce() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let ours = try String(contentsOf: Built.packageRoot.appendingPathComponent("desktop/io.github.schemebridge.SchemeBridge.desktop"), encoding: .utf8)
        try ours.write(to: f.applications.appendingPathComponent("io.github.schemebridge.SchemeBridge.desktop"), atomically: true, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/loop=io.github.schemebridge.SchemeBridge.desktop\n"
            .write(to: f.configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        // The handler: counts its runs, hands the URL to xdg-open (which runs our entry's
        // `schemebridge open`), and records how that ended. Nothing in its Exec line says so.
        let records = f.records.path
        let looper = f.bin.appendingPathComponent("looper").path
        try """
            #!/bin/sh
            echo run >> '\(records)/looper.runs'
            PATH='\(Built.programs.path):/usr/bin:/bin' XDG_CURRENT_DESKTOP= DESKTOP_SESSION= DISPLAY=:999 WAYLAND_DISPLAY= BROWSER= \\
                xdg-open "$1" 2> '\(records)/looper.err.tmp'
            echo $? > '\(records)/looper.err.status'
            mv '\(records)/looper.err.tmp' '\(records)/looper.err'
            """.write(toFile: looper, atomically: true, encoding: .utf8)
        chmod(looper, 0o755)
        try f.entry("looper.desktop", "Name=Looper\nExec=\(looper) %u\nMimeType=x-scheme-handler/loop;")

        let log = f.root.appendingPathComponent("failed.log")
        let monitor = try Tools.spawn(["dbus-monitor", "--address", f.bus.address,
                                       "type='signal',interface='\(ServiceFixture.interface)',member='URLFailed'"], stdout: log)
        defer { monitor.signal(SIGTERM) }
        let failures = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(await Tools.eventually { failures().contains("member=NameLost") }, "dbus-monitor never started")

        let opened = try await f.dbusSend("OpenURL", "string:loop://again")
        #expect(opened.status == 0, "\(opened.stderr)")
        let err = f.records.appendingPathComponent("looper.err")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: err.path) }, "the handler's xdg-open never ended")
        // The handed-back request was refused (our CLI failed, so xdg-open did), naming the handler…
        let message = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(message.contains("Looper (looper.desktop) hands the URL back"), "\(message)")
        let status = (try? String(contentsOf: f.records.appendingPathComponent("looper.err.status"), encoding: .utf8)) ?? ""
        #expect(status != "0\n", "xdg-open succeeded: \(message)")
        // …as LaunchFailed (URLFailed says so to the session)…
        #expect(await Tools.eventually { failures().contains(ContractError.launchFailed.description) }, "\(failures())")
        // …and the handler ran exactly once (it has ended: its one xdg-open has returned).
        let runs = (try? String(contentsOfFile: records + "/looper.runs", encoding: .utf8)) ?? ""
        #expect(runs == "run\n", "the handler ran \(runs.split(separator: "\n").count) times")
    }
}
