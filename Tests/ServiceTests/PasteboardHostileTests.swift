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
        let r = try await f.runClient("PasteboardHostile/hostile-writes", python: try f.pythonNamed("hostile"))
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
        let r = try await f.runClient("PasteboardHostile/quotas", python: try f.pythonNamed("greedy"))
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
        let r = try await f.runClient("PasteboardHostile/disk-filler", python: writer)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix(ContractError.quotaExceeded.rawValue) && lines[0].contains("disk is full"), "\(r.stdout)\(r.stderr)")
        #expect(lines.last == "4000")
        let pid = try #require(await f.servicePID())
        kill(pid, SIGKILL)
        #expect(await Tools.eventually { await f.servicePID() != pid })
        let after = try await f.runClient("PasteboardHostile/disk-reader", python: writer)
        #expect(after.stdout == "4000\n", "\(after.stdout)\(after.stderr)\n\(f.serviceLog)")
    }
}
