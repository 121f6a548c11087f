import Foundation
import Testing
@testable import SchemeBridgeCore

extension WatcherTests {
    @Suite struct HostileInputTests {
        @Test func oversizedFileIsSkipped() async {
            let t = XDGTree()
            let big = XDGTree.desktopFile(schemes: ["s"]) + "Comment=" + String(repeating: "x", count: 1 << 20) + "\n"
            t.write(t.apps(1) + "/big.desktop", big)
            t.entry(1, "ok.desktop", schemes: ["s"])
            let r = t.registry()
            #expect(r.handlers(forScheme: "s") == ["ok.desktop"])
            #expect(r.recentWarnings.count == 1)
            #expect(r.recentWarnings.first?.message.contains("1024 KiB limit") == true)
        }

        @Test func specialFilesDoNotBlockOrCrash() async throws {
            let t = XDGTree()
            #expect(mkfifo(t.apps(1) + "/fifo.desktop", 0o644) == 0)
            try FileManager.default.createSymbolicLink(atPath: t.apps(1) + "/dangling.desktop", withDestinationPath: "/nonexistent/x.desktop")
            try FileManager.default.createSymbolicLink(atPath: t.apps(1) + "/loop", withDestinationPath: t.apps(1))
            try FileManager.default.createSymbolicLink(atPath: t.apps(1) + "/self.desktop", withDestinationPath: t.apps(1) + "/self.desktop")
            let real = t.entry(2, "target.desktop", schemes: ["s"])
            try FileManager.default.createSymbolicLink(atPath: t.apps(1) + "/linked.desktop", withDestinationPath: real)
            t.writeBytes(t.apps(1) + "/name-\u{FFFD}.desktop", Array(XDGTree.desktopFile(schemes: ["s"]).utf8))
            let bad = t.apps(1) + "/"
            let badName = Array(bad.utf8) + [0x62, 0xFF, 0x2E] + Array("desktop".utf8)
            badName.withUnsafeBufferPointer { buf in
                var withNul = Array(buf)
                withNul.append(0)
                withNul.withUnsafeBufferPointer { p in
                    p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: withNul.count) { cpath in
                        let f = open(cpath, O_CREAT | O_WRONLY, 0o644)
                        close(f)
                    }
                }
            }
            let r = t.registry(watch: true)
            defer { r.close() }
            #expect(Set(r.handlers(forScheme: "s")) == ["linked.desktop", "name-\u{FFFD}.desktop", "target.desktop"])
            let messages = r.recentWarnings.map(\.description)
            #expect(messages.contains { $0.contains("fifo.desktop") && $0.contains("not a regular file") })
            #expect(messages.contains { $0.contains("already scanned") })
            #expect(messages.contains { $0.contains("not UTF-8") })
            // The loop does not trap the watcher either.
            t.entry(1, "after.desktop", schemes: ["s"])
            #expect(await waitUntil { r.handlers(forScheme: "s").contains("after.desktop") } != nil)
        }

        @Test func filesVanishingDuringScansNeverCrash() async throws {
            let t = XDGTree()
            for i in 0..<300 { t.entry(1, "v\(i).desktop", schemes: ["v"]) }
            let r = t.registry(watch: true)
            defer { r.close() }
            let stop = Mutex2(false)
            let churn = Thread {
                var round = 0
                while !stop.value {
                    for i in 0..<300 where i % 2 == round % 2 {
                        let p = t.apps(1) + "/v\(i).desktop"
                        if round % 3 == 0 { unlink(p) } else { t.write(p, XDGTree.desktopFile(schemes: ["v"])) }
                    }
                    round += 1
                }
            }
            churn.start()
            for _ in 0..<10 {
                r.rescan()
                _ = r.handlers(forScheme: "v")
            }
            stop.mutate { $0 = true }
            try? await Task.sleep(for: .milliseconds(100))
            // Settle: recreate every file; the index must converge to all of them.
            for i in 0..<300 { t.write(t.apps(1) + "/v\(i).desktop", XDGTree.desktopFile(schemes: ["v"])) }
            #expect(await waitUntil(timeout: .seconds(5)) { r.handlers(forScheme: "v").count == 300 } != nil)
        }

        @Test func hostileURLsThroughARealEntry() async throws {
            let t = XDGTree()
            t.entry(1, "h.desktop", schemes: ["h"], exec: #""/opt/Hostile App/bin/h" --url=%u"#)
            let r = t.registry()
            let entry = try #require(r.entry(id: "h.desktop"))
            for url in ["h:$(reboot)", "h:`id`", "h:a b;c", "h:\"'", "h:-x"] {
                let cmds = entry.launchCommands(for: [try SchemeURL(url)])
                #expect(cmds == [LaunchCommand(argv: ["/opt/Hostile App/bin/h", "--url=" + url])])
            }
        }
    }
}
