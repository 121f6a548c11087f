import Foundation
import Testing
import DBusTestSupport
import SchemeBridgeContract

/// What a hostile or careless client sends to a pasteboard: documented errors, no crash, and
/// nothing a reader sees changes after its `Read` returned.
@Suite struct PasteboardHostileTests {
    @Test func wrongTypesHugeArraysManyItemsAndWrongDescriptorsAreRefused() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        let r = try await f.runPython("""
            from pb import *
            import os, socket, dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('', {})
            p = board(b, path)
            def set_(value, t='text/plain'): return error(lambda: p.SetItems([{t: value}])).split(':')[0]
            print('string', set_(dbus.String('not data', variant_level=1)))
            print('type', set_(dbus.ByteArray(b'x'), 'not a mime type'))
            print('huge ay', set_(dbus.ByteArray(b'x' * (20 << 20))))
            print('items', error(lambda: p.SetItems([{'text/plain': dbus.ByteArray(b'x')}] * 5000)).split(':')[0])
            r, w = os.pipe()
            print('pipe', set_(dbus.types.UnixFd(r)))
            s1, s2 = socket.socketpair()
            print('socket', set_(dbus.types.UnixFd(s1.fileno())))
            print('directory', set_(dbus.types.UnixFd(os.open('/', os.O_RDONLY | os.O_DIRECTORY))))
            print('O_PATH', set_(dbus.types.UnixFd(os.open('/etc/hostname', os.O_PATH))))
            print('write-only', set_(dbus.types.UnixFd(os.open(os.devnull, os.O_WRONLY))))
            print('options', error(lambda: boards(b).CreatePasteboard('', {'persistent': 'yes'})).split(':')[0])
            print('name', error(lambda: boards(b).CreatePasteboard('bad\\nname', {})).split(':')[0])
            print('grant *', error(lambda: p.Grant(['*'])).split(':')[0])
            # An unsealed memfd is copied: what the writer does to it later is never seen.
            fd = sealed(b'original', seal=False)
            p.SetItems([{'text/plain': dbus.types.UnixFd(fd)}])
            got = p.Read(0, 'text/plain').take()
            os.pwrite(fd, b'CHANGED!', 0); os.ftruncate(fd, 3)
            print('copy', os.pread(got, 100, 0), bytes(p.ReadBytes(0, 'text/plain')))
            # A reader's descriptor cannot write, and its content stays after new items arrive.
            try:
                os.write(got, b'x'); print('written!')
            except OSError as e: print('write refused')
            p.SetItems([{'text/plain': dbus.ByteArray(b'second')}])
            print('after', os.pread(got, 100, 0), bytes(p.ReadBytes(0, 'text/plain')))
            print('no item', error(lambda: p.Read(7, 'text/plain')).split(':')[0])
            print('no type', error(lambda: p.Read(0, 'image/png')).split(':')[0])
            svc = dbus.Interface(b.get_object(N, O), N)
            print('alive', bool(svc.CanOpenURL('nothing://x')) is False)
            """, python: try f.pythonNamed("hostile"))
        #expect(r.stdout == """
            string InvalidArgs
            type InvalidArgs
            huge ay InvalidArgs
            items InvalidArgs
            pipe InvalidArgs
            socket InvalidArgs
            directory InvalidArgs
            O_PATH InvalidArgs
            write-only InvalidArgs
            options InvalidArgs
            name InvalidArgs
            grant * InvalidArgs
            copy b'original' b'original'
            write refused
            after b'original' b'second'
            no item NoSuchType
            no type NoSuchType
            alive True

            """, "\(r.stdout)\(r.stderr)\n\(f.serviceLog)")
    }

    @Test func quotasRefuseMoreAndKeepWhatIsThere() async throws {
        let f = try ServiceFixture()
        defer { f.stop() }
        try f.writeConfig("[Pasteboards]\nMaxPasteboardsPerApp=2\nMaxBytesPerApp=100000\n")
        let r = try await f.runPython("""
            from pb import *
            import dbus
            b = bus()
            a, _ = boards(b).CreatePasteboard('a', {})
            boards(b).CreatePasteboard('b', {})
            print(error(lambda: boards(b).CreatePasteboard('c', {})).split(':')[0])
            print(boards(b).CreatePasteboard('a', {})[0] == a)
            p = board(b, a)
            p.SetItems([{'text/plain': dbus.ByteArray(b'kept' * 1000)}])
            print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'y' * 200000))}])).split(':')[0])
            print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'y' * 200000, seal=False))}])).split(':')[0])
            print(len(bytes(p.ReadBytes(0, 'text/plain'))), int(dbus.Interface(b.get_object(N, a), 'org.freedesktop.DBus.Properties').Get(PB, 'ChangeCount')))
            """, python: try f.pythonNamed("greedy"))
        let quota = ContractError.quotaExceeded.rawValue
        #expect(r.stdout == "\(quota)\nTrue\n\(quota)\n\(quota)\n4000 1\n", "\(r.stdout)\(r.stderr)")
    }
}

/// A full disk: the write that does not fit is refused with a clear error, and the pasteboard
/// keeps what it had — across a restart too. The state directory is a 1 MiB tmpfs (mounting
/// needs root, which CI and this machine's test runs have).
@Suite struct PasteboardFullDiskTests {
    @Test func aFullDiskIsAClearErrorAndLosesNothing() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sb-small-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let mounted = try await Tools.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", state.path])
        try #require(mounted.status == 0, "cannot mount a small tmpfs (this test needs root): \(mounted.stderr)")
        defer {
            _ = Glibc.umount2(state.path, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(at: state)
        }
        let f = try ServiceFixture(extraEnvironment: ["XDG_STATE_HOME": state.path])
        defer { f.stop() }
        let writer = try f.pythonNamed("disk-filler")
        let r = try await f.runPython("""
            from pb import *
            import dbus
            b = bus()
            path, name = boards(b).CreatePasteboard('on-a-small-disk', {'persistent': True})
            p = board(b, path)
            p.SetItems([{'text/plain': dbus.ByteArray(b'fits' * 1000)}])
            print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'z' * (3 << 20)))}])))
            print(len(bytes(p.ReadBytes(0, 'text/plain'))))
            """, python: writer)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix(ContractError.quotaExceeded.rawValue) && lines[0].contains("disk is full"), "\(r.stdout)\(r.stderr)")
        #expect(lines.last == "4000")
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        let after = try await f.runPython("""
            from pb import *
            b = bus()
            print(len(bytes(board(b, boards(b).FindPasteboard('on-a-small-disk')).ReadBytes(0, 'text/plain'))))
            """, python: writer)
        #expect(after.stdout == "4000\n", "\(after.stdout)\(after.stderr)\n\(f.serviceLog)")
    }
}
