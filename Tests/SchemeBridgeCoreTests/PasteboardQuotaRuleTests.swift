import Glibc
import LinuxSystem
import Synchronization
import Testing
@testable import SchemeBridgeCore

/// Quotas against squatting (issue 21, item 6): callers known only by an executable path share
/// one quota, pasteboards that are not persistent live at most an hour, memory allocated past a
/// memfd's end is charged, and at a global limit the largest owner makes room for a newcomer.
@Suite struct PasteboardQuotaRuleTests {
    /// Data of `size` bytes as a memfd of that size would be charged (a descriptor of /dev/null
    /// stands in: the store never reads it).
    func data(_ size: Int64) -> [[(type: String, data: SealedData)]] {
        [[(type: "application/octet-stream", data: SealedData(FileDescriptor(owning: open("/dev/null", O_RDONLY | O_CLOEXEC)), size: size))]]
    }

    func caller(_ n: Int, _ id: String?) -> Caller { Caller(busName: ":1.\(n)", id: id.flatMap(CallerID.init), lineage: [Int32(1000 + n)]) }

    @Test func executablePathsShareOneSmallQuotaAndAppsKeepTheirOwn() throws {
        let store = PasteboardStore(disk: nil)
        let limits = store.currentLimits
        #expect(limits.quota(of: .shared) == (64, 256 << 20))
        // Four hard links of python: four paths, one quota. 2 GiB sparse does not fit at all.
        let links = (1...4).map { caller($0, "/home/u/bin/python-\($0)") }
        var accepted: Int64 = 0
        for link in links {
            let board = try store.create(name: "squat", persistent: false, expiresIn: nil, caller: link)
            #expect(throws: PasteboardError.self) { try store.setItems(board.id, data(2 << 30), caller: link) }
            if (try? store.setItems(board.id, data(100 << 20), caller: link)) != nil { accepted += 100 << 20 }
        }
        #expect(accepted == 200 << 20, "the four paths together kept \(accepted) bytes")
        // Not identified at all: the same shared quota.
        let unknown = caller(9, nil)
        let theirs = try store.create(name: "x", persistent: false, expiresIn: nil, caller: unknown)
        #expect(throws: PasteboardError.self) { try store.setItems(theirs.id, data(100 << 20), caller: unknown) }
        // An app named by its entry keeps its own 2 GiB.
        let app = caller(10, "org.example.App")
        let board = try store.create(name: "x", persistent: false, expiresIn: nil, caller: app)
        #expect(try store.setItems(board.id, data(10), caller: app).0 == 1)
        #expect(try store.setItems(board.id, data(2 << 30), caller: app).0 == 2)
        // The shared count: 64 pasteboards among all paths, never more than one app's.
        for i in 0..<64 { _ = try? store.create(name: "n\(i)", persistent: false, expiresIn: nil, caller: links[i % 4]) }
        let shared = store.ids.compactMap { store.peek($0) }.filter { $0.quotaKey == .shared }.count
        #expect(shared == 64)
        var fewer = PasteboardLimits()
        fewer.maximumPerOwner = 2
        #expect(fewer.quota(of: .shared).count == 2)
    }

    @Test func pasteboardsThatAreNotPersistentLiveAtMostAnHour() throws {
        let store = PasteboardStore(disk: nil)
        let app = caller(1, "org.example.App")
        let week: UInt64 = 7 * 86_400
        let temporary = try store.create(name: "t", persistent: false, expiresIn: week, caller: app)
        #expect(temporary.expires <= PasteboardStore.now() + 3600, "\(temporary.expires - PasteboardStore.now()) s")
        let kept = try store.create(name: "p", persistent: true, expiresIn: week, caller: app)
        #expect(kept.expires >= PasteboardStore.now() + Int64(week) - 60)
    }

    @Test func theNewKeysAreReadAndTheHourCannotBeRaised() throws {
        var warnings: [String] = []
        let config = try PolicyConfig.parse("[Pasteboards]\nMaxTemporaryExpiry=7200\nMaxPasteboardsUnidentified=8\nMaxBytesUnidentified=1024\n",
                                            path: "c", warnings: &warnings)
        #expect(config.pasteboards.maximumTemporaryExpiry == 3600 && warnings.count == 1, "\(warnings)")
        #expect(config.pasteboards.quota(of: .shared) == (8, 1024))
        #expect(config.pasteboards.quota(of: .owner("org.example.App")) == (64, 2 << 30))
    }

    @Test func memoryAllocatedPastTheEndIsCharged() {
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        #expect(SealedData.charge(size: 10, blocks: page / 512) == 10)
        #expect(SealedData.charge(size: 2 << 30, blocks: 0) == 2 << 30, "a sparse memfd costs its size")
        #expect(SealedData.charge(size: 10, blocks: (64 << 20) / 512) == 10 + (64 << 20) - page)
    }

    @Test func atTheGlobalCountTheLargestOwnerMakesRoomTemporaryFirst() throws {
        var limits = PasteboardLimits()
        limits.maximumTotal = 4
        let store = PasteboardStore(disk: nil, limits: { [limits] in limits })
        let evicted = Mutex<[String]>([])
        store.onRemoved { board, why in if why == .evicted { evicted.withLock { $0.append(board.name) } } }
        let big = caller(1, "org.example.Big"), newcomer = caller(2, "org.example.New")
        _ = try store.create(name: "kept", persistent: true, expiresIn: 60, caller: big)
        _ = try store.create(name: "second", persistent: false, expiresIn: 600, caller: big)
        _ = try store.create(name: "first", persistent: false, expiresIn: 300, caller: big)
        _ = try store.create(name: "third", persistent: false, expiresIn: 900, caller: big)
        // Full: the newcomer's pasteboards take the place of the big owner's temporary ones,
        // soonest expiring first, never its persistent one while a temporary one is left.
        _ = try store.create(name: "a", persistent: false, expiresIn: nil, caller: newcomer)
        _ = try store.create(name: "b", persistent: false, expiresIn: nil, caller: newcomer)
        #expect(evicted.withLock { $0 } == ["first", "second"])
        // Now both hold two: the newcomer would hold more than the other, so it is refused.
        #expect(throws: PasteboardError.self) { try store.create(name: "c", persistent: false, expiresIn: nil, caller: newcomer) }
        #expect(store.count == 4)
    }

    @Test func atTheGlobalByteLimitTheLargestOwnerMakesRoom() throws {
        var limits = PasteboardLimits()
        limits.maximumTotalBytes = 100
        let store = PasteboardStore(disk: nil, limits: { [limits] in limits })
        let big = caller(1, "org.example.Big"), small = caller(2, "org.example.Small")
        let large = try store.create(name: "large", persistent: false, expiresIn: 300, caller: big)
        let rest = try store.create(name: "rest", persistent: false, expiresIn: 600, caller: big)
        _ = try store.setItems(large.id, data(90), caller: big)
        _ = try store.setItems(rest.id, data(5), caller: big)
        let mine = try store.create(name: "mine", persistent: false, expiresIn: nil, caller: small)
        #expect(try store.setItems(mine.id, data(10), caller: small).0 == 1)
        #expect(store.peek(large.id) == nil && store.peek(rest.id) != nil)
        // The big owner, now smaller than the small one would be, is not evicted for it.
        #expect(throws: PasteboardError.self) { try store.setItems(mine.id, data(96), caller: small) }
        #expect(store.peek(rest.id) != nil)
    }

    @Test func readBytesReturnsSmallItemsOnly() throws {
        var limits = PasteboardLimits()
        limits.maximumReadBytes = 4
        #expect(try SealedData.make(bytes: [1, 2, 3, 4]).bytesForReading(item: 0, type: "a/b", limits: limits) == [1, 2, 3, 4])
        do {
            _ = try SealedData.make(bytes: [1, 2, 3, 4, 5]).bytesForReading(item: 2, type: "a/b", limits: limits)
            Issue.record("ReadBytes returned more than its limit")
        } catch {
            #expect(error.kind == .limitsExceeded && error.message.contains("item 2's 'a/b' is 5 bytes") && error.message.contains("use Read"))
        }
    }

    @Test func inboxCopiesAreChargedToTheSendingApp() {
        #expect(InboxSender(CallerID("org.example.A")) == .caller("org.example.A"))
        #expect(InboxSender(nil) == .unidentified, "unidentified callers share one charge")
        // A caller may call itself anything, but not into the shared charge.
        #expect(InboxSender(CallerID("(unidentified)")) != InboxSender(nil))
        #expect(InboxSender(CallerID("(unidentified)")).description == InboxSender(nil).description)
        var config = PolicyConfig()
        config.inboxBytes = 1000
        config.inboxRetention = 30
        #expect(config.inboxLimits == InboxLimits(inboxBytes: 1000, retention: 30))
    }

    /// A share's pasteboard outlives the share (its target reads it after launch): at the app's
    /// count, the oldest one made for a share makes room, never one the app made itself.
    @Test func theOldestSharePasteboardMakesRoomAtTheAppsCount() throws {
        let two: PasteboardLimits = {
            var limits = PasteboardLimits()
            limits.maximumPerOwner = 2
            return limits
        }()
        let store = PasteboardStore(disk: nil, limits: { two })
        let app = caller(1, "org.example.Photos")
        let first = try store.create(name: "", persistent: false, expiresIn: 600, caller: app, forShare: true)
        let second = try store.create(name: "", persistent: false, expiresIn: 601, caller: app, forShare: true)
        // A third share: the first share's pasteboard goes.
        let third = try store.create(name: "", persistent: false, expiresIn: 602, caller: app, forShare: true)
        #expect(store.peek(first.id) == nil)
        #expect(store.peek(second.id) != nil && store.peek(third.id) != nil)
        // The app's own pasteboard: the second share's goes for it.
        let own = try store.create(name: "mine", persistent: false, expiresIn: 60, caller: app)
        #expect(store.peek(second.id) == nil && store.peek(own.id) != nil)
        // Another app's share pasteboards never make room for this one.
        let other = caller(2, "org.example.Other")
        let theirs = try store.create(name: "", persistent: false, expiresIn: 600, caller: other, forShare: true)
        let mine2 = try store.create(name: "mine2", persistent: false, expiresIn: 60, caller: app)
        #expect(store.peek(third.id) == nil && store.peek(mine2.id) != nil)
        // Only its own pasteboards left: the count holds.
        #expect(throws: PasteboardError.self) { try store.create(name: "", persistent: false, expiresIn: 600, caller: app, forShare: true) }
        #expect(store.peek(own.id) != nil && store.peek(theirs.id) != nil)
    }
}
