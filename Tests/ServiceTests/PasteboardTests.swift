import Foundation
import Testing
import DBus
import DBusTestSupport
import SchemeBridgeContract

/// Pasteboards end to end on a private bus with the real service: seed 001's editor → viewer
/// flow, who may see what, lifetime (restart, expiry) and big data by descriptor.
@Suite struct PasteboardTests {
    /// The person viewer: a desktop entry whose program is `/bin/sh` running a python3 script, so
    /// the viewer process is identified only as python (not as the entry): what lets it read is
    /// the grant to the process the broker started, not its app id. It records what it read.
    static func installViewer(_ f: ServiceFixture) throws {
        let script = f.root.appendingPathComponent("viewer.py").path
        try """
            import sys, os, json, urllib.parse
            from pb import *
            url = sys.argv[1]
            name = urllib.parse.urlsplit(url).fragment
            b = bus()
            path = boards(b).FindPasteboard(name)
            p = board(b, path)
            types = [list(map(str, t)) for t in p.Types()]
            person = json.loads(read_all(p.Read(0, 'application/x-person+json').take()))
            image = read_all(p.Read(1, 'image/png').take())
            open('\(f.records.path)/viewer.out.tmp', 'w').write(json.dumps({'types': types, 'person': person, 'image': len(image), 'png': image[:4] == b'\\x89PNG'}))
            p.Delete()
            os.rename('\(f.records.path)/viewer.out.tmp', '\(f.records.path)/viewer.out')
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let launcher = f.bin.appendingPathComponent("person-viewer").path
        try "#!/bin/sh\nPYTHONPATH='\(try f.pasteboardModule())' SB_BUS='\(f.bus.address)' exec \(Tools.systemPython) '\(script)' \"$1\" 2>'\(f.records.path)/viewer.err'\n"
            .write(toFile: launcher, atomically: true, encoding: .utf8)
        chmod(launcher, 0o755)
        try f.entry("org.example.PersonViewer.desktop", "Name=Person Viewer\nExec=\(launcher) %u\nMimeType=x-scheme-handler/viewer;", system: true)
    }

    @Test func theSeedsEditorHandsAPersonToTheViewerWhichReadsAndDeletesIt() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try Self.installViewer(f)
        let editor = try f.pythonNamed("person-editor")
        let r = try await f.runPython("""
            from pb import *
            import json, dbus
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            b = bus()
            path, name = boards(b).CreatePasteboard('', {'persistent': True})
            p = board(b, path)
            person = {'version': 1, 'name': 'Ada Lovelace', 'born': 1815}
            png = b'\\x89PNG\\r\\n\\x1a\\n' + bytes(range(256)) * 64
            count = p.SetItems([{'application/x-person+json': dbus.ByteArray(json.dumps(person).encode())},
                                {'image/png': dbus.types.UnixFd(sealed(png))}])
            loop = GLib.MainLoop()
            deleted = []
            b.add_signal_receiver(lambda: (deleted.append(1), loop.quit()), 'Deleted', PB, N, path)
            svc = dbus.Interface(b.get_object(N, O), N)
            svc.OpenURLWithOptions('viewer://?ReadPasteboardData#' + name, {'pasteboard': path})
            GLib.timeout_add_seconds(240, loop.quit)
            loop.run()
            print(name.startswith('pasteboard-'), len(name), int(count), 'deleted' if deleted else 'no Deleted signal')
            """, python: editor)
        #expect(r.stdout.hasPrefix("True 43 1 deleted"), "\(r.stdout)\(r.stderr)\n\(f.serviceLog)")
        let out = f.records.appendingPathComponent("viewer.out")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) })
        let read = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        #expect(read.contains("\"name\": \"Ada Lovelace\"") && read.contains("\"image\": 16392") && read.contains("\"png\": true"),
                "\(read) \(f.recordedEnv("viewer")) \((try? String(contentsOf: f.records.appendingPathComponent("viewer.err"), encoding: .utf8)) ?? "")")
        #expect(read.contains("[[\"application/x-person+json\"], [\"image/png\"]]"))
        // Deleted: nothing left on disk.
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: f.pasteboardStorage.path)) ?? []
        #expect(stored.isEmpty, "\(stored)")
    }

    @Test func anotherAppNeverLearnsAPasteboardExistsUntilGranted() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let owner = try f.pythonNamed("owner-app"), intruder = try f.pythonNamed("intruder")
        let made = try await f.runPython("""
            from pb import *
            import dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('shared-notes', {'expires-in': dbus.UInt64(3600)})
            board(b, path).SetItems([{'text/plain': dbus.ByteArray(b'secret notes')}])
            upath, uname = boards(b).CreatePasteboard('', {})
            print(path, uname)
            """, python: owner)
        let parts = made.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(parts.count == 2, "\(made.stdout)\(made.stderr)")
        let (path, unique) = (parts[0], parts[1])
        let probe = """
            from pb import *
            import sys, dbus
            b = bus()
            print(error(lambda: boards(b).FindPasteboard('shared-notes')).split(':')[0])
            print(error(lambda: boards(b).FindPasteboard(sys.argv[1])).split(':')[0])
            print(error(lambda: board(b, sys.argv[2]).Types()).split(':')[0])
            print(error(lambda: board(b, sys.argv[2]).Read(0, 'text/plain')).split(':')[0])
            print(error(lambda: board(b, sys.argv[2]).Delete()).split(':')[0])
            props = dbus.Interface(b.get_object(N, sys.argv[2]), 'org.freedesktop.DBus.Properties').GetAll(PB)
            print(repr(str(props['Name'])))
            """
        let denied = try await f.runPython(probe, python: intruder, [unique, path])
        #expect(denied.stdout == "NoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\n''\n",
                "\(denied.stdout)\(denied.stderr)")
        // dbus-send is another app too.
        let plain = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply", "--dest=\(ServiceFixture.name)", ServiceFixture.path,
                                         "\(Contract.pasteboardsInterface.rawValue).\(ContractMethod.findPasteboard.rawValue)", "string:shared-notes"])
        #expect(plain.stderr.contains(ContractError.noSuchPasteboard.description), "\(plain.stderr)")
        // The same name is free for the intruder: a pasteboard of its own, empty.
        let own = try await f.runPython("""
            from pb import *
            b = bus()
            path, name = boards(b).CreatePasteboard('shared-notes', {})
            print(path != '\(path)', len(board(b, path).Types()))
            """, python: intruder)
        #expect(own.stdout == "True 0\n", "\(own.stdout)\(own.stderr)")
        // Granted by its app id (its executable here), it reads; revoked, it sees nothing again.
        let grant = try await f.runPython("""
            from pb import *
            b = bus()
            board(b, '\(path)').Grant(['\(intruder)'])
            """, python: owner)
        #expect(grant.status == 0, "\(grant.stderr)")
        let reads = try await f.runPython("""
            from pb import *
            b = bus()
            p = board(b, '\(path)')
            print(bytes(p.ReadBytes(0, 'text/plain')).decode())
            print(error(lambda: p.SetItems([])).split(':')[0])
            print(error(lambda: p.Grant(['someone.Else'])).split(':')[0])
            """, python: intruder)
        #expect(reads.stdout == "secret notes\nAccessDenied\nAccessDenied\n", "\(reads.stdout)\(reads.stderr)")
        _ = try await f.runPython("from pb import *\nboard(bus(), '\(path)').Revoke(['\(intruder)'])", python: owner)
        let again = try await f.runPython(probe, python: intruder, [unique, path])
        // (The name now finds the intruder's own pasteboard.)
        #expect(again.stdout.hasPrefix("no error\nNoSuchPasteboard\nNoSuchPasteboard\nNoSuchPasteboard\n"), "\(again.stdout)\(again.stderr)")
    }

    @Test func aGrantedHandlerReadsAfterTheOwnerExited() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The handler waits on a gate, then reads with python (a child of the started process);
        // it writes what it read beside the record and renames it, so the record appears whole.
        let reader = f.root.appendingPathComponent("reader.py").path
        try "from pb import *\nimport sys, urllib.parse\nb = bus()\np = board(b, boards(b).FindPasteboard(urllib.parse.urlsplit(sys.argv[1]).fragment))\nopen('\(f.records.path)/late.tmp', 'w').write(bytes(p.ReadBytes(0, 'text/plain')).decode())\nimport os\nos.rename('\(f.records.path)/late.tmp', '\(f.records.path)/late.out')\n"
            .write(toFile: reader, atomically: true, encoding: .utf8)
        let handler = f.bin.appendingPathComponent("late-reader").path
        try "#!/bin/sh\n\(f.gate.shellWait("late"))\nPYTHONPATH='\(try f.pasteboardModule())' SB_BUS='\(f.bus.address)' \(Tools.systemPython) '\(reader)' \"$1\" 2>'\(f.records.path)/late.err'\n"
            .write(toFile: handler, atomically: true, encoding: .utf8)
        chmod(handler, 0o755)
        try f.entry("org.example.Late.desktop", "Name=Late\nExec=\(handler) %u\nMimeType=x-scheme-handler/late;", system: true)
        let owner = try await f.runPython("""
            from pb import *
            import dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('', {})
            board(b, path).SetItems([{'text/plain': dbus.ByteArray(b'written before leaving')}])
            print(dbus.Interface(b.get_object(N, O), N).OpenURLWithOptions('late://open#' + name, {'pasteboard': name})['handler'])
            """, python: try f.pythonNamed("leaving-owner"))
        #expect(owner.stdout == "org.example.Late.desktop\n", "\(owner.stdout)\(owner.stderr)")
        // The owner has exited (and left the bus); now the handler goes on.
        f.release("late")
        let out = f.records.appendingPathComponent("late.out")
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: out.path) },
                "\((try? String(contentsOf: f.records.appendingPathComponent("late.err"), encoding: .utf8)) ?? "")")
        #expect((try? String(contentsOf: out, encoding: .utf8)) == "written before leaving")
    }

    @Test func aPersistentPasteboardSurvivesKillingTheServiceWithItsGrants() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let owner = try f.pythonNamed("keeper"), friend = try f.pythonNamed("friend")
        let made = try await f.runPython("""
            from pb import *
            import dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('kept', {'persistent': True})
            p = board(b, path)
            p.SetItems([{'text/plain': dbus.ByteArray(b'survives'), 'application/octet-stream': dbus.types.UnixFd(sealed(b'\\x00\\x01' * 70000))}])
            p.Grant(['\(friend)'])
            print(path)
            """, python: owner)
        try #require(made.status == 0, "\(made.stderr)")
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        // The next call starts the service again by bus activation; the friend finds it by name.
        let read = try await f.runPython("""
            from pb import *
            import hashlib
            b = bus()
            path = boards(b).FindPasteboard('kept')
            p = board(b, path)
            print(path)
            print(bytes(p.ReadBytes(0, 'text/plain')).decode(), len(read_all(p.Read(0, 'application/octet-stream').take())))
            """, python: friend)
        #expect(read.stdout == made.stdout + "survives 140000\n", "\(read.stdout)\(read.stderr)\n\(f.serviceLog)")
        #expect(await f.servicePID() != nil)
    }

    @Test func anExpiredPasteboardIsGoneWithItsStorage() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let r = try await f.runPython("""
            from pb import *
            import dbus
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            b = bus()
            path, name = boards(b).CreatePasteboard('short', {'persistent': True, 'expires-in': dbus.UInt64(3)})
            loop = GLib.MainLoop()
            b.add_signal_receiver(lambda: (print('Deleted'), loop.quit()), 'Deleted', PB, N, path)
            # Expiry may come first on a slow machine: then the pasteboard is gone already.
            print(error(lambda: board(b, path).SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'x' * 1000000))}])).split(':')[0] in ('no error', 'NoSuchPasteboard'))
            GLib.timeout_add_seconds(240, loop.quit)
            loop.run()
            print(error(lambda: boards(b).FindPasteboard('short')).split(':')[0])
            """, python: try f.pythonNamed("short-lived"))
        #expect(r.stdout == "True\nDeleted\nNoSuchPasteboard\n", "\(r.stdout)\(r.stderr)")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: f.pasteboardStorage.path)) ?? []
        #expect(stored.isEmpty, "storage left: \(stored)")
        #expect(await f.serviceMemfds() == 0, "the data is freed")
    }

    @Test func aGibibyteRoundTripsByDescriptorWhileTheServiceStaysSmall() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        // The writer is known by its executable only: those share 256 MiB unless the config says more.
        try f.writeConfig("[Pasteboards]\nMaxBytesUnidentified=2147483648\n")
        let r = try await f.runPython("""
            from pb import *
            import os, dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('', {})
            p = board(b, path)
            size = 1 << 30
            fd = os.memfd_create('big', os.MFD_ALLOW_SEALING)
            os.ftruncate(fd, size)
            marks = {0: b'first', size // 2: b'middle', size - 4: b'last'}
            for at, mark in marks.items(): os.pwrite(fd, mark, at)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
            p.SetItems([{'application/octet-stream': dbus.types.UnixFd(fd)}])
            got = p.Read(0, 'application/octet-stream').take()
            print(os.fstat(got).st_size == size, all(os.pread(got, len(m), at) == m for at, m in marks.items()))
            print(error(lambda: p.ReadBytes(0, 'application/octet-stream')))
            """, python: try f.pythonNamed("big-writer"))
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "True True", "\(r.stdout)\(r.stderr)")
        #expect(lines.count > 1 && lines[1].hasPrefix("LimitsExceeded") && lines[1].contains("use Read"), "\(r.stdout)")
        let pid = try #require(await f.servicePID())
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? .max
        #expect(peak < 64 * 1024, "the service's peak RSS was \(peak) KiB")
    }

    @Test func bothInterfacesMatchTheShippedXMLAndChangesReachOwnerAndGranteesOnly() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let reader = try f.pythonNamed("change-reader"), stranger = try f.pythonNamed("stranger")
        // The owner makes a pasteboard and grants the reader; each then waits for Changed.
        let made = try await f.runPython("""
            from pb import *
            b = bus()
            path, name = boards(b).CreatePasteboard('watched', {})
            board(b, path).Grant(['\(reader)'])
            print(path)
            """, python: try f.pythonNamed("change-owner"))
        let path = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(path.hasPrefix(Contract.pasteboardPathPrefix + "/"), "\(made.stdout)\(made.stderr)")
        let watch = """
            from pb import *
            import sys, os
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            b = bus()
            print(error(lambda: boards(b).FindPasteboard('watched')).split(':')[0], flush=True)
            loop = GLib.MainLoop()
            b.add_signal_receiver(lambda n: (print('Changed', int(n), flush=True), loop.quit()), 'Changed', PB, N, sys.argv[1])
            open(sys.argv[2], 'w').close()
            # The reader quits on its Changed (60 s at most); the stranger when the test says the
            # reader got it (the gate file appears), so it listened the whole time.
            def released():
                if len(sys.argv) > 4 and os.path.exists(sys.argv[4]): loop.quit(); return False
                return True
            GLib.timeout_add(50, released)
            GLib.timeout_add_seconds(int(sys.argv[3]), loop.quit)
            loop.run()
            """
        let readerReady = f.records.appendingPathComponent("reader.ready").path, strangerReady = f.records.appendingPathComponent("stranger.ready").path
        async let readerSaw = f.runPython(watch, python: reader, [path, readerReady, "60"])
        // The stranger listens (a match rule on the path) but is never sent the signal; it gives up
        // after the reader got its Changed.
        let heardIt = f.records.appendingPathComponent("reader.heard").path
        async let strangerSaw = f.runPython(watch, python: stranger, [path, strangerReady, "120", heardIt])
        #expect(await Tools.eventually { FileManager.default.fileExists(atPath: readerReady) && FileManager.default.fileExists(atPath: strangerReady) })
        let set = try await f.runPython("""
            from pb import *
            import dbus
            print(int(board(bus(), '\(path)').SetItems([{'text/plain': dbus.ByteArray(b'new')}])))
            """, python: try f.pythonNamed("change-owner"))
        #expect(set.stdout == "1\n", "\(set.stderr)")
        let r = try await readerSaw
        _ = FileManager.default.createFile(atPath: heardIt, contents: nil)
        let s = try await strangerSaw
        #expect(r.stdout == "no error\nChanged 1\n", "\(r.stdout)\(r.stderr)")
        #expect(s.stdout == "NoSuchPasteboard\n", "\(s.stdout)\(s.stderr)")
        // Introspection is what dbus/ ships, for both interfaces (a file each).
        for (object, interface) in [(ServiceFixture.path, Contract.pasteboardsInterface.rawValue), (path, Contract.pasteboardInterface.rawValue)] {
            let live = try await Tools.run(["dbus-send", "--bus=\(f.bus.address)", "--print-reply=literal", "--dest=\(ServiceFixture.name)",
                                            object, "org.freedesktop.DBus.Introspectable.Introspect"])
            let liveElement = ShippedInterface.element(live.stdout, interface)
            let shippedElement = ShippedInterface.element(try ShippedInterface.file(interface), interface)
            #expect(liveElement != nil && liveElement == shippedElement, "\(live.stdout)")
        }
    }
}
