import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// `SetDefaultHandler` while another program (`gio mime`) writes the same `mimeapps.list`:
/// a change the other program made is never lost through us.
@Suite struct MimeAppsRaceTests {
    @Test func gioMimeChangesSurviveOurWrites() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let count = 40
        for i in 0..<count {
            try f.entry("g\(i).desktop", "Name=G\(i)\nExec=/bin/true %u\nMimeType=x-scheme-handler/g\(i);", system: true)
            try f.entry("s\(i).desktop", "Name=S\(i)\nExec=/bin/true %u\nMimeType=x-scheme-handler/s\(i);", system: true)
        }
        try f.writeConfig("[Policy]\nMaxSetDefaultRate=0\n")   // this test is about the file, not the rate
        _ = try await f.dbusSend("CanOpenURL", "string:s0:warm")
        let environment = [
            "XDG_DATA_HOME": f.dataHome.path, "XDG_DATA_DIRS": f.systemData.path,
            "XDG_CONFIG_HOME": f.configHome.path, "XDG_CONFIG_DIRS": f.root.appendingPathComponent("sysconfig").path, "HOME": f.root.path,
        ]
        async let gio = Tools.run(["/bin/sh", "-c", "i=0; while [ $i -lt \(count) ]; do gio mime x-scheme-handler/g$i g$i.desktop >/dev/null || exit 1; i=$((i+1)); done"],
                                  environment: environment, timeout: .seconds(300))
        async let python = Tools.run(Clients.command("MimeAppsRace/set-defaults", [f.bus.address, String(count)]), environment: Clients.serviceNames, timeout: .seconds(300))
        let (g, p) = try await (gio, python)
        #expect(g.status == 0, "\(g.stderr)")
        #expect(p.status == 0, "\(p.stderr)")
        let list = try String(contentsOf: f.configHome.appendingPathComponent("mimeapps.list"), encoding: .utf8)
        let lost = (0..<count).filter { !list.contains("x-scheme-handler/g\($0)=g\($0).desktop") }
        let oursKept = (0..<count).filter { list.contains("x-scheme-handler/s\($0)=s\($0).desktop") }.count
        print("MEASURE gio mime ×\(count) racing SetDefaultHandler ×\(count): gio's defaults lost \(lost.count); ours kept \(oursKept) (gio itself may drop ours: it does not retry)")
        #expect(lost.isEmpty, "gio's defaults lost through our writes: \(lost)")
    }
}
